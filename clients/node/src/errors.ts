/**
 * The server's error vocabulary on the client side: every failed call carries a
 * google.rpc.ErrorInfo (domain "bezique.v1") whose reason is an ErrorReason name. This reads it
 * from a ConnectError so that callers can switch on the generated enum.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

import { ErrorReason } from "./gen/bezique/v1/table_service_pb.js";

export const ERROR_DOMAIN = "bezique.v1";
const ERROR_INFO_TYPE = "google.rpc.ErrorInfo";

/** The fields of a google.rpc.ErrorInfo that the server fills. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/**
 * Decodes google.rpc.ErrorInfo (reason = 1, domain = 2, metadata = 3, a map<string, string>)
 * from its wire form: three fields do not warrant generating all of google/rpc.
 */
export function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) info.reason = reader.string();
    else if (field === 2 && wireType === WireType.LengthDelimited) info.domain = reader.string();
    else if (field === 3 && wireType === WireType.LengthDelimited) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [entryField, entryType] = entry.tag();
        if (entryField === 1 && entryType === WireType.LengthDelimited) key = entry.string();
        else if (entryField === 2 && entryType === WireType.LengthDelimited) value = entry.string();
        else entry.skip(entryType);
      }
      info.metadata[key] = value;
    } else reader.skip(wireType);
  }
  return info;
}

/** The fields of a google.rpc.Status: the code, message and details (`type` is the Any's type
 * name without its `type.googleapis.com/` prefix, as ConnectError.details holds them). */
export interface RpcStatus {
  code: number;
  message: string;
  details: { type: string; value: Uint8Array }[];
}

/**
 * Decodes a serialized google.rpc.Status (code = 1, message = 2, details = 3, each a
 * google.protobuf.Any of type_url = 1 and value = 2): the `grpc-status-details-bin` trailer, and
 * a Play result's `status_details`.
 */
export function decodeStatus(bytes: Uint8Array): RpcStatus {
  const status: RpcStatus = { code: 0, message: "", details: [] };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.Varint) status.code = reader.int32();
    else if (field === 2 && wireType === WireType.LengthDelimited) status.message = reader.string();
    else if (field === 3 && wireType === WireType.LengthDelimited) {
      const any = new BinaryReader(reader.bytes());
      let typeUrl = "";
      let value: Uint8Array = new Uint8Array();
      while (any.pos < any.len) {
        const [anyField, anyType] = any.tag();
        if (anyField === 1 && anyType === WireType.LengthDelimited) typeUrl = any.string();
        else if (anyField === 2 && anyType === WireType.LengthDelimited) value = any.bytes();
        else any.skip(anyType);
      }
      status.details.push({ type: typeUrl.slice(typeUrl.lastIndexOf("/") + 1), value });
    } else reader.skip(wireType);
  }
  return status;
}

/**
 * The ConnectError a call would have thrown for this status: `details`, a serialized
 * google.rpc.Status, read as the gRPC transport reads `grpc-status-details-bin` (its code and
 * message first, then `code` and `message`), so that errorReason and errorInfo work on it.
 */
export function statusError(code: number, message: string, details: Uint8Array): ConnectError {
  const status = details.length > 0 ? decodeStatus(details) : undefined;
  const known = (value: number): value is Code => value > 0 && value in Code;
  const chosen = status !== undefined && known(status.code) ? status.code
    : known(code) ? code : Code.Unknown;
  const error = new ConnectError(status?.code ? status.message : message, chosen);
  error.details = status?.details ?? [];
  return error;
}

/** The ErrorInfo of a failed call, if the error is the server's (domain bezique.v1). */
export function errorInfo(error: unknown): ErrorInfo | undefined {
  const connectError = ConnectError.from(error);
  for (const detail of connectError.details) {
    if ("desc" in detail) continue; // a detail this client attached itself
    if (detail.type !== ERROR_INFO_TYPE) continue;
    const info = decodeErrorInfo(detail.value);
    if (info.domain === ERROR_DOMAIN) return info;
  }
  return undefined;
}

/**
 * The ErrorReason of a failed call; ErrorReason.UNSPECIFIED when the error did not come from
 * the table service (a transport failure, a deadline) or names a reason newer than this client.
 */
export function errorReason(error: unknown): ErrorReason {
  const reason = errorInfo(error)?.reason ?? "";
  const value = (ErrorReason as unknown as Record<string, ErrorReason | undefined>)[reason];
  return typeof value === "number" ? value : ErrorReason.UNSPECIFIED;
}

/** The status code's name as the protocol docs spell it, e.g. "ABORTED". */
export function codeName(code: Code): string {
  const name = Code[code];
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** One line for people: "CODE: message (REASON)". */
export function describeError(error: unknown): string {
  if (!(error instanceof ConnectError)) {
    return error instanceof Error ? error.message : String(error);
  }
  const reason = errorInfo(error)?.reason;
  const code = codeName(error.code);
  return `${code}: ${error.rawMessage}${reason && reason !== code ? ` (${reason})` : ""}`;
}
