//! The integration suite: one binary, a module per area, each test against a
//! real server in-process on loopback ports (see `support`).

mod apply;
mod apply_differential;
mod backup;
mod cel_limits;
mod conformance_fixes;
mod conversion;
mod conversion_declarative;
mod conversion_webhook;
mod crash;
mod declarative;
mod definitions;
mod deprecation;
mod gates;
mod gateway;
mod hostile;
mod kubectl;
mod lifecycle;
mod migration;
mod protobuf;
mod races;
mod resource_reads;
mod resources;
mod schemas;
mod server;
mod storage;
mod stored_reads;
mod strict;
mod subresources;
mod support;
mod telemetry;
mod transport;
mod watch;
mod watch_checker;
