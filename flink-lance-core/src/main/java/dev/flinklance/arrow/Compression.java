package dev.flinklance.arrow;

import org.apache.flink.annotation.PublicEvolving;

/**
 * General-purpose compression of a Lance column's pages (Lance file format 2.1 and later), on top
 * of Lance's own lightweight encodings (bit packing, dictionaries, FSST for strings).
 */
@PublicEvolving
public enum Compression {
  /** Zstandard: the smallest files, more CPU per row. */
  ZSTD("zstd"),
  /** LZ4: faster than zstd, larger files. */
  LZ4("lz4"),
  /** Lance's own encodings only. */
  NONE(null);

  private final String lanceScheme;

  Compression(String lanceScheme) {
    this.lanceScheme = lanceScheme;
  }

  /**
   * The value of Lance's {@code lance-encoding:compression} field metadata, or null for none: a
   * field with no such metadata gets Lance's own encodings, while Lance's own "none" turns them off
   * too (five times the bytes of narrow rows, measured on lance-core 7.0.0).
   */
  String lanceScheme() {
    return lanceScheme;
  }
}
