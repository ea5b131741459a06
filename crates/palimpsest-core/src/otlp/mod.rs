//! Sessions as OpenTelemetry traces (`palimpsest export --otlp URL | --otlp-file FILE`): each
//! session one trace in the GenAI semantic conventions (`spans`), sent as OTLP/HTTP protobuf
//! to the collector the user names, or written as OTLP/JSON lines (one
//! `ExportTraceServiceRequest` per line, the collector's file exporter format). Nothing is sent
//! anywhere but the address given. Which sessions are exported is `api::export_otlp`'s.

mod events;
mod messages;
mod spans;
mod usage;
mod wire;

use std::io::Write;
use std::path::PathBuf;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use serde::{Deserialize, Serialize};

use crate::cost::SessionCost;
use crate::error::{Error, Result};
use crate::model::Session;
use wire::kv;

/// The version of the mapping from sessions to spans (`palimpsest.otlp.mapping` on every
/// resource): raised when a span, attribute or event changes meaning, so a backend can tell
/// exports apart.
pub const MAPPING_VERSION: i64 = 1;

/// A request holds at most about this many bytes of spans: a long session's requests each carry
/// the model's whole view, and collectors cap what they accept in one request (4 MiB by
/// default for gRPC and several HTTP receivers).
const BATCH_BYTES: usize = 3 << 20;

/// Where the traces go.
#[derive(Debug, Clone)]
pub enum Target {
    /// An OTLP/HTTP traces endpoint, e.g. `http://localhost:6006/v1/traces`.
    Http(String),
    /// A file of OTLP/JSON lines.
    File(PathBuf),
}

/// How sessions are exported.
#[derive(Debug, Clone)]
pub struct Options {
    /// Message texts, tool arguments and results, and compaction summaries in the spans;
    /// without them only names, counts, usage, prices and times.
    pub bodies: bool,
    /// `host.name` of every resource (the machine the sessions were recorded on).
    pub machine: String,
    /// `service.version`: the exporting build (`api::about`).
    pub version: String,
}

/// What an export sent or wrote.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OtlpReport {
    /// The URL or file.
    pub target: String,
    /// Sessions exported, one trace each.
    pub sessions: usize,
    /// Spans in all: a session's, its requests' and its tool calls'.
    pub spans: usize,
    /// Request (`chat`) spans.
    pub requests: usize,
    /// Tool (`execute_tool`) spans.
    pub tool_calls: usize,
    /// Compaction events.
    pub compactions: usize,
    /// OTLP requests sent (or lines written).
    pub batches: usize,
    /// Their size in bytes, as sent.
    pub bytes: u64,
    /// Sessions that could not be read, each naming its file; the rest were exported.
    pub problems: Vec<crate::error::Problem>,
}

/// Sends or writes sessions one by one.
pub struct Exporter {
    sink: Sink,
    opts: Options,
    report: OtlpReport,
}

/// The target, opened.
enum Sink {
    Http {
        url: String,
        agent: ureq::Agent,
    },
    File {
        path: PathBuf,
        out: std::io::BufWriter<std::fs::File>,
    },
}

impl Exporter {
    /// An exporter to `target` (a file is created, or emptied).
    pub fn new(target: Target, opts: Options) -> Result<Self> {
        let report = OtlpReport {
            target: match &target {
                Target::Http(u) => u.clone(),
                Target::File(p) => p.display().to_string(),
            },
            ..Default::default()
        };
        let sink = match target {
            Target::File(path) => Sink::File {
                out: std::io::BufWriter::new(
                    std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?,
                ),
                path,
            },
            Target::Http(url) => Sink::Http {
                url,
                agent: ureq::Agent::config_builder()
                    .timeout_global(Some(std::time::Duration::from_secs(120)))
                    .build()
                    .into(),
            },
        };
        Ok(Exporter { sink, opts, report })
    }

    /// Export one session, with its cost when it recorded usage.
    pub fn session(&mut self, session: &Session, cost: Option<&SessionCost>) -> Result<()> {
        let t = spans::trace(session, cost, self.opts.bodies);
        self.report.sessions += 1;
        self.report.spans += t.spans.len();
        self.report.requests += t.requests;
        self.report.tool_calls += t.tool_calls;
        self.report.compactions += t.compactions;
        let mut batch = Vec::new();
        let mut size = 0;
        for s in t.spans {
            let n = s.encoded_len();
            if !batch.is_empty() && size + n > BATCH_BYTES {
                self.send(std::mem::take(&mut batch))?;
                size = 0;
            }
            size += n;
            batch.push(s);
        }
        if !batch.is_empty() {
            self.send(batch)?;
        }
        Ok(())
    }

    /// Note a session that could not be read.
    pub fn problem(&mut self, p: crate::error::Problem) {
        self.report.problems.push(p);
    }

    /// Flush the file, and say what was exported.
    pub fn finish(mut self) -> Result<OtlpReport> {
        if let Sink::File { path, out } = &mut self.sink {
            out.flush().map_err(|e| Error::io(&*path, e))?;
        }
        Ok(self.report)
    }

    fn request(&self, spans: Vec<Span>) -> ExportTraceServiceRequest {
        let resource = Resource {
            attributes: vec![
                kv("service.name", "palimpsest"),
                kv("service.version", self.opts.version.as_str()),
                kv("host.name", self.opts.machine.as_str()),
                kv("palimpsest.otlp.mapping", MAPPING_VERSION),
            ],
            ..Default::default()
        };
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(resource),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "palimpsest".into(),
                        version: self.opts.version.clone(),
                        ..Default::default()
                    }),
                    spans,
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        }
    }

    fn send(&mut self, spans: Vec<Span>) -> Result<()> {
        let request = self.request(spans);
        let bytes = match &mut self.sink {
            Sink::File { path, out } => {
                let line =
                    serde_json::to_string(&request).map_err(|e| Error::Send(e.to_string()))?;
                writeln!(out, "{line}").map_err(|e| Error::io(&*path, e))?;
                line.len() + 1
            }
            Sink::Http { url, agent } => {
                let body = request.encode_to_vec();
                agent
                    .post(url.as_str())
                    .header("Content-Type", "application/x-protobuf")
                    .send(&body[..])
                    .map_err(|e| Error::Send(format!("cannot send traces to {url}: {e}")))?;
                body.len()
            }
        };
        self.report.batches += 1;
        self.report.bytes += bytes as u64;
        Ok(())
    }
}
