/** @bezique/table-client: a typed gRPC client for bezique.v1.TableService. */

export * from "./client.js";
export * from "./errors.js";
export * from "./session.js";
export * from "./gen/bezique/v1/table_service_pb.js";
export * from "./fair/verify.js";
