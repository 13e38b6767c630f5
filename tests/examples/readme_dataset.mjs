// The dataset the README's "Beyond one machine" commands write: four
// shards of 250,000 events, one day each, partitioned by day and
// platform, read back by DuckDB with hive_partitioning as the README's
// query does.
import { readdirSync, existsSync } from 'node:fs';
import { DuckDBInstance } from '../interop/node_modules/@duckdb/node-api/lib/index.js';

const root = process.argv[2];
const fail = (msg) => { console.error(`readme dataset: ${msg}`); process.exit(1); };

const top = readdirSync(root).sort();
const manifests = top.filter((n) => /^_inlay_manifest\.[1-4]\.json$/.test(n));
if (manifests.length !== 4) fail(`expected the manifests of shards 1..4, found ${top.join(' ')}`);
if (!existsSync(`${root}/_SUCCESS`)) fail('no _SUCCESS');
const days = top.filter((n) => n.startsWith('day='));
if (days.join(' ') !== 'day=2024-06-01 day=2024-06-02 day=2024-06-03 day=2024-06-04')
  fail(`day folders: ${days.join(' ')}`);

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const src = `read_parquet('${root}/**/*.parquet', hive_partitioning = true)`;
const [[n, ndays, nplatforms, nparts]] = await rows(
  `SELECT count(*), count(DISTINCT day), count(DISTINCT platform), count(DISTINCT (day, platform)) FROM ${src}`);
if (Number(n) !== 1000000) fail(`${n} rows, expected 1000000`);
if (Number(ndays) !== 4 || Number(nplatforms) !== 6 || Number(nparts) !== 24)
  fail(`${ndays} days, ${nplatforms} platforms, ${nparts} partitions; expected 4, 6, 24`);
const [[type]] = await rows(`SELECT typeof(day) FROM ${src} LIMIT 1`);
if (type !== 'DATE') fail(`day is ${type}, not DATE`);
// every event in the folder of its own day: the column inside the logs, ts, agrees with the folder
const [[misplaced]] = await rows(`SELECT count(*) FROM ${src} WHERE CAST(ts AS DATE) <> day`);
if (Number(misplaced) !== 0) fail(`${misplaced} events in another day's folder`);
// the same events as the four inputs
const [[diff]] = await rows(`SELECT count(*) FROM (
  (SELECT event_id, ts, platform FROM read_parquet('${root}/../logs/*.parquet')
   EXCEPT ALL SELECT event_id, ts, platform FROM ${src})
  UNION ALL
  (SELECT event_id, ts, platform FROM ${src}
   EXCEPT ALL SELECT event_id, ts, platform FROM read_parquet('${root}/../logs/*.parquet')))`);
if (Number(diff) !== 0) fail(`${diff} events differ from the inputs`);
console.log(`readme dataset: 1000000 rows, 24 partitions, 4 shards: ok`);
