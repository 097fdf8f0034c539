import FerryCore
import FerryStore
import Foundation
import Tracing

extension Worker {
    /// The span of the attempt the current task runs (set only with tracing on), so `submit` can put the outcome on it.
    @TaskLocal static var attemptSpan: (any Span)?

    /// Runs one attempt inside a `ferry.job.attempt` span that joins the job's trace.
    ///
    /// The trace is the `traceparent` given at enqueue; without one it is derived from the job id (trace id = the
    /// job id's 32 hex digits), so every attempt of a job still lands in one trace, found by job id, and nothing is
    /// stored at enqueue. Handlers' spans (`ferry.upload.chunk`, `ferry.s3.part`, …) become children through the
    /// task-local `ServiceContext`.
    func executeTraced(_ job: ClaimedJob, facts: JobTraceFacts?, generation: Int) async {
        let parent = facts?.traceparent ?? Self.derivedTraceParent(job.jobID)
        let context = TraceParentCarrier.context(parent)
        if let lost = facts?.lostAttempt { reportLostAttempt(lost, of: job, context: context) }
        await withSpan("ferry.job.attempt", context: context, ofKind: .consumer) { span in
            span.attributes.merge(Self.attributes(of: job, attempt: job.attempt, worker: configuration.name))
            var job = job
            // Work this attempt starts (fan-out children) joins the trace under this span.
            let own = TraceParentCarrier.traceParent(of: span.context)
            job.traceparent = own ?? parent
            await Self.$attemptSpan.withValue(span) {
                await execute(job, attemptSpanID: own?.spanID, generation: generation)
            }
        }
    }

    /// The span of an attempt whose worker died (`kill -9`, a lost machine) and so never ended its own span.
    ///
    /// A span is exported only when it ends, and a tracer cannot be told which span id to use (swift-otel keeps
    /// its id generator internal). So the next attempt rebuilds the lost one from the event log: same name and
    /// attributes, start = its `claimed` event, end = its `rescued` event, status error "worker lost", `ferry.worker`
    /// = the dead worker. The dead worker's chunk spans that ended were exported with their parent set to its
    /// attempt span id; that id was kept in its progress events, so the rebuilt span names it
    /// (`ferry.attempt.lost_span_id`) and links to it. Emitted once: only the claim after the rescue does it.
    func reportLostAttempt(_ lost: JobTraceFacts.LostAttempt, of job: ClaimedJob, context: ServiceContext) {
        let span = startSpan(
            "ferry.job.attempt", at: TraceTimestamp(lost.claimedAt), context: context, ofKind: .consumer)
        span.attributes.merge(Self.attributes(of: job, attempt: lost.attempt, worker: lost.worker ?? "unknown"))
        span.attributes["ferry.attempt.rebuilt_by"] = configuration.name
        if let bytes = lost.bytesDone { span.attributes["ferry.bytes"] = bytes }
        if let spanID = lost.spanID, let parent = TraceParentCarrier.traceParent(of: context) {
            span.attributes["ferry.attempt.lost_span_id"] = spanID
            let lostSpan = TraceParentCarrier.context(TraceParent(traceID: parent.traceID, spanID: spanID))
            span.addLink(SpanLink(context: lostSpan, attributes: ["ferry.link": "lost attempt span"]))
        }
        span.setStatus(SpanStatus(code: .error, message: "worker lost: it stopped heartbeating and the job was rescued"))
        span.end(at: TraceTimestamp(lost.rescuedAt))
    }

    static func attributes(of job: ClaimedJob, attempt: Int, worker: String) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["ferry.job.id"] = job.jobID.uuidString.lowercased()
        attributes["ferry.job.kind"] = job.kind.rawValue
        attributes["ferry.queue"] = job.queue
        if let account = job.account { attributes["ferry.account"] = account }
        attributes["ferry.job.attempt"] = attempt
        attributes["ferry.worker"] = worker
        if let total = job.bytesTotal { attributes["ferry.bytes_total"] = total }
        return attributes
    }

    /// The trace of a job enqueued without a `traceparent`: trace id = the job id, parent span id = its last 16
    /// hex digits (a span nobody exports, the same for every attempt).
    static func derivedTraceParent(_ jobID: UUID) -> TraceParent {
        let hex = jobID.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return TraceParent(traceID: hex, spanID: String(hex.suffix(16)))
    }
}
