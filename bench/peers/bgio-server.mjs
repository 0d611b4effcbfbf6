// A boardgame.io server with the highcard game, on 127.0.0.1.
// Usage: node bgio-server.mjs PORT API_PORT [flatfile DIR].
// Prints "listening on 127.0.0.1:PORT". The lobby API (create, join) is served on API_PORT: on
// the game's own port its routes answer 404 with the koa-compose this version of koa pulls in
// (the composed middleware is copied before the lobby's routes are added).
import http from 'node:http';
import { createRequire } from 'node:module';
import { HighCard } from './highcard-bgio.mjs';

const require = createRequire(import.meta.url);
const { Server, FlatFile } = require('boardgame.io/server');
const Koa = require('koa');

const [port, apiPort] = process.argv.slice(2, 4).map(Number);
// FlatFile without node-persist's expired-keys scan: every 2 minutes it reads every stored file
// (4 a match) one after the other, beside the moves' own reads and writes; with no ttl set it
// can remove nothing, and when it read a file FlatFile was writing (truncated, not yet written)
// it rejected, unhandled, and Node ended the server, leaving the load's clients waiting (seen
// with the scan run every second; a second way the peers' run could hang, 2026-11-30). Every
// other part of FlatFile is as is.
class FlatFileNoScan extends FlatFile {
  async connect() {
    await super.connect();
    this.games.stopExpiredKeysInterval();
  }
}
const db = process.argv[4] === 'flatfile'
  ? new FlatFileNoScan({ dir: process.argv[5], logging: false }) : undefined;
// Both servers listen on loopback only: the lobby's Koa app through Koa's listen, the game's
// through the listen koa-socket-2 puts on its app (it forwards its arguments).
Koa.prototype.listen = function listen(p, callback) {
  return http.createServer(this.callback()).listen(p, '127.0.0.1', callback);
};
const server = Server({ games: [HighCard], origins: [/.*/], ...(db ? { db } : {}) });
const gameListen = server.app.listen.bind(server.app);
server.app.listen = (p, callback) => gameListen(p, '127.0.0.1', callback);
await server.run({ port, lobbyConfig: { apiPort } });
console.log(`listening on 127.0.0.1:${port}`);
