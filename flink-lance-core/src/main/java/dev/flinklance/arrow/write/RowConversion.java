package dev.flinklance.arrow.write;

import org.apache.flink.table.data.RowData;

/**
 * Writes a row's values into the top-level columns of a batch at one index: the per-row part of
 * {@link ArrowBatchWriter}. {@link ConversionCompiler} generates one per schema; {@link
 * InterpretedConversion} is the same through the column writers, where no compiler is there.
 */
interface RowConversion {

  /**
   * @throws dev.flinklance.arrow.InvalidValueException if a value cannot be stored; what the row
   *     wrote sits at {@code index}, which the next row overwrites
   */
  void write(RowData row, int index);

  /** The batch's buffers were released or handed on: room and addresses known are gone. */
  void forgetRoom();
}
