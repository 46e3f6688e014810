package dev.flinklance.table;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.source.LanceSourceConfig;
import java.util.Map;
import org.apache.flink.table.types.logical.RowType;

/**
 * What a {@code VECTOR_SEARCH} over a table source searches (see {@link SearchableSource}).
 *
 * @param tableOptions the table's options ({@code vector-search.*} are read)
 * @param producedType the table's columns as the search returns them
 * @param filter a Lance SQL filter pushed into the table, or null
 */
record SearchTarget(
    LanceSourceConfig source,
    LanceReadSchema schema,
    Map<String, String> tableOptions,
    RowType producedType,
    String filter) {}
