// A second Lance implementation for the interop tests: the LanceDB Node SDK (a newer Lance inside).
//   node interop.mjs read <database dir> <table>   prints the table's rows and schema as JSON
//   node interop.mjs write <database dir> <table>  creates the table LanceDbInteropITCase expects
//   node interop.mjs widen <database dir> <table>  adds the column extra, renames name to label
//   node interop.mjs narrow <database dir> <table> drops the column score
import * as lancedb from "@lancedb/lancedb";
import * as arrow from "apache-arrow";

// Arrow JS values as plain JSON: int64 as numbers (the tests' values are small), vectors and lists
// as arrays, structs and maps as objects.
function plain(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (ArrayBuffer.isView(value)) return Array.from(value, plain);
  // by name: the SDK's rows may come from its own copy of apache-arrow, where instanceof fails
  const type = value.constructor && value.constructor.name;
  if (type === "Vector") return Array.from(value, plain);
  if (type === "MapRow") return Object.fromEntries(Array.from(value, ([k, v]) => [k, plain(v)]));
  if (typeof value === "object" && typeof value.toJSON === "function") {
    // a struct row: its fields by name, each converted
    return Object.fromEntries(Object.keys(value.toJSON()).map((k) => [k, plain(value[k])]));
  }
  return value;
}

async function read(dir, name) {
  const table = await (await lancedb.connect(dir)).openTable(name);
  const data = await table.query().toArrow();
  const rows = data.toArray().map((row) => plain(row));
  const fields = Object.fromEntries(data.schema.fields.map((f) => [f.name, String(f.type)]));
  console.log(JSON.stringify({ rows, fields, version: await table.version() }));
}

async function write(dir, name) {
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("name", new arrow.Utf8(), true),
    new arrow.Field("score", new arrow.Float64(), true),
    new arrow.Field("tags", new arrow.List(new arrow.Field("item", new arrow.Utf8(), true)), true),
    new arrow.Field(
      "vec",
      new arrow.FixedSizeList(4, new arrow.Field("item", new arrow.Float32(), true)),
      true,
    ),
    new arrow.Field("ts", new arrow.TimestampMillisecond(), true),
  ]);
  const rows = (from, to) => {
    const out = [];
    for (let i = from; i < to; i++) {
      out.push({
        id: BigInt(i),
        name: i % 5 === 0 ? null : `näme-${i}`,
        score: i % 7 === 0 ? null : i * 0.25,
        tags: i % 3 === 0 ? null : [`t${i % 4}`, "ü"],
        vec: [i, i + 0.5, -i, 0.25],
        ts: 1767225600000 + i * 1000,
      });
    }
    return out;
  };
  const db = await lancedb.connect(dir);
  const table = await db.createTable(name, rows(0, 100), { schema });
  await table.add(rows(100, 150));
  await table.delete("id % 10 = 3");
}

// the SDK's own schema changes: addColumns (a Merge), alterColumns and dropColumns (Projects)
async function widen(dir, name) {
  const table = await (await lancedb.connect(dir)).openTable(name);
  await table.addColumns([{ name: "extra", valueSql: "CAST(NULL AS STRING)" }]);
  await table.alterColumns([{ path: "name", rename: "label" }]);
}

async function narrow(dir, name) {
  const table = await (await lancedb.connect(dir)).openTable(name);
  await table.dropColumns(["score"]);
}

const commands = { read, write, widen, narrow };
const [command, dir, name] = process.argv.slice(2);
await commands[command](dir, name);
