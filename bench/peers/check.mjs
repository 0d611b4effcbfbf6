// Is it the same game? On a fresh peer server: every seat holds its 8 cards and sees no other
// hand; a move out of turn and a card not in the mover's hand change nothing; a legal move
// reaches every seat. Prints "ok" or throws. Usage: as load.mjs (node check.mjs PEER HOST:PORT
// [HOST:API_PORT]).
import { bgioTables, colyseusTables, SEATS } from './clients.mjs';

const [peer, target, lobby] = process.argv.slice(2);
const [table] = peer === 'bgio'
  ? await bgioTables(target, lobby, 1) : await colyseusTables(target, 1);
const settle = (ms = 300) => new Promise((resolve) => { setTimeout(resolve, ms); });
const until = async (condition) => {
  for (let waited = 0; waited < 10000 && !condition(); waited += 20) await settle(20);
};
const versions = () => table.latest.map((st) => st.version).join(',');
const fail = (what) => { throw new Error(`${peer}: ${what}`); };

await until(() => table.latest.every((st) => st !== null));
for (let seat = 0; seat < SEATS; seat += 1) {
  const st = table.latest[seat];
  if (!st || st.hand.length !== 8) fail(`seat ${seat} does not hold 8 cards`);
  if (st.othersVisible) fail(`seat ${seat} sees another seat's hand`);
}
const mover = await table.turn();
const before = versions();
const other = (mover + 1) % SEATS;
table.send(other, table.latest[other].hand[0]);
await settle();
if (versions() !== before) fail('a move out of turn was taken');
const mine = new Set(table.latest[mover].hand);
const foreign = [...Array(32).keys()].find((card) => !mine.has(card));
table.send(mover, foreign);
await settle();
if (versions() !== before) fail('a card not in the hand was played');
await table.play(mover);
await until(() => table.latest.every((st) => st.version > Number(before.split(',')[0])));
await settle();
const after = table.latest.map((st) => st.version);
if (after.some((version) => version !== Number(before.split(',')[0]) + 1)) {
  fail(`a legal move did not reach every seat once (${before} -> ${after})`);
}
if (table.latest.some((st) => st.othersVisible)) fail('a hand leaked after a move');
console.log(`ok ${peer}: versions ${before} -> ${after.join(',')}`);
table.close();
process.exit(0);
