'use strict';
/**
 * A small promise-based client for bezique.v1.TableService.
 *
 * The .proto is loaded at run time with @grpc/proto-loader (no code generation):
 * field names are camelCase (view.legalMoves, response.seatToken), int64 values are JS numbers,
 * enums are their names, unset fields get their defaults and unset messages are null.
 * A seat's calls carry its token as metadata `authorization: Bearer <token>`; a call without a
 * token is a spectator's.
 */

const crypto = require('node:crypto');
const path = require('node:path');

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'bezique/v1/table_service.proto';

const LOADER_OPTIONS = Object.freeze({
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  // google/protobuf/struct.proto and timestamp.proto are bundled with protobufjs.
  includeDirs: [PROTO_ROOT],
});

let serviceConstructor = null;

/** The generated TableService client class (loaded once). */
function loadService() {
  if (serviceConstructor === null) {
    const definition = protoLoader.loadSync(PROTO_FILE, LOADER_OPTIONS);
    serviceConstructor = grpc.loadPackageDefinition(definition).bezique.v1.TableService;
  }
  return serviceConstructor;
}

/** Call metadata: the seat token as a bearer credential, and the platform API key if any. */
function authMetadata(token, apiKey) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  if (apiKey) metadata.set('x-api-key', apiKey);
  return metadata;
}

/** Option values travel as strings: true/false for booleans, "none" for null. */
function optionText(value) {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

/** A google.protobuf.Struct as decoded by proto-loader, turned into a plain object. */
function structToObject(struct) {
  const result = {};
  for (const [key, value] of Object.entries((struct && struct.fields) || {})) {
    result[key] = valueToJs(value);
  }
  return result;
}

function valueToJs(value) {
  if (!value) return null;
  switch (value.kind) {
    case 'numberValue': return value.numberValue;
    case 'stringValue': return value.stringValue;
    case 'boolValue': return value.boolValue;
    case 'structValue': return structToObject(value.structValue);
    case 'listValue': return ((value.listValue && value.listValue.values) || []).map(valueToJs);
    default: return null;
  }
}

/** The name of a gRPC status code, e.g. 10 -> "ABORTED". */
function statusName(code) {
  return Object.keys(grpc.status).find((name) => grpc.status[name] === code) || String(code);
}

class TableClient {
  /**
   * @param {string} target host:port of the server
   * @param {object} [settings] credentials (default insecure), apiKey, timeoutMs per unary call
   */
  constructor(target, { credentials, apiKey = '', timeoutMs = 30000 } = {}) {
    const Service = loadService();
    this.stub = new Service(target, credentials || grpc.credentials.createInsecure());
    this.apiKey = apiKey;
    this.timeoutMs = timeoutMs;
  }

  close() {
    this.stub.close();
  }

  _unary(method, request, token) {
    const options = this.timeoutMs ? { deadline: Date.now() + this.timeoutMs } : {};
    return new Promise((resolve, reject) => {
      this.stub[method](request, authMetadata(token, this.apiKey), options, (error, response) => {
        if (error) reject(error);
        else resolve(response);
      });
    });
  }

  /** The installed variants, with option schemas and bot policies. */
  async listVariants() {
    const response = await this._unary('ListVariants', {});
    return response.variants;
  }

  /**
   * A new table. `bots` maps seat -> policy ({1: "random"}) or is a list of {seat, policy}.
   * Resolves to the CreateTableResponse ({tableId, seedCommitment, table}).
   */
  createTable(variantId, { options = {}, bots = {}, turnSeconds = 0 } = {}) {
    const botSeats = Array.isArray(bots)
      ? bots
      : Object.entries(bots).map(([seat, policy]) => ({ seat: Number(seat), policy }));
    const textOptions = {};
    for (const [name, value] of Object.entries(options)) textOptions[name] = optionText(value);
    return this._unary('CreateTable', {
      variantId, options: textOptions, bots: botSeats, turnSeconds,
    });
  }

  /** Take a seat (the given one or the first free): resolves to {seat, seatToken, view}. */
  joinTable(tableId, { seat, name = '' } = {}) {
    const request = { tableId, displayName: name };
    if (seat !== undefined && seat !== null) request.seat = seat;
    return this._unary('JoinTable', request);
  }

  /** The view of the token's seat (or a spectator's without a token). */
  async getView(tableId, token) {
    const response = await this._unary('GetView', { tableId }, token);
    return response.view;
  }

  /**
   * Submit one of view.legalMoves unchanged, with expectedVersion = view.version.
   * A new request id is made unless one is given (reuse it to retry the same attempt).
   */
  submitMove(tableId, token, move, expectedVersion, requestId = crypto.randomUUID()) {
    return this._unary('SubmitMove', { tableId, move, expectedVersion, requestId }, token);
  }

  /**
   * Every update after `fromVersion`, then live. Returns the grpc-js stream: listen for
   * 'data'/'error'/'end', or iterate it with `for await` (leaving the loop early cancels the
   * call); call `.cancel()` to stop listening.
   */
  watchTable(tableId, token, fromVersion = 0) {
    const call = this.stub.WatchTable({ tableId, fromVersion }, authMetadata(token, this.apiKey));
    // A stream destroyed by `break` would keep the call (and the process) alive: cancel it too.
    const iterate = call[Symbol.asyncIterator].bind(call);
    call[Symbol.asyncIterator] = async function* updates() {
      try {
        yield* iterate();
      } finally {
        call.cancel();
      }
    };
    return call;
  }

  /** The log as the caller may see it; everything (and the seed) once the game has ended. */
  getHistory(tableId, token) {
    return this._unary('GetHistory', { tableId }, token);
  }
}

module.exports = {
  LOADER_OPTIONS,
  PROTO_FILE,
  PROTO_ROOT,
  TableClient,
  authMetadata,
  grpc,
  loadService,
  optionText,
  statusName,
  structToObject,
};
