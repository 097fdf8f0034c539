import FerryCore
import Tracing

/// Moves a `traceparent` between Ferry's event data and the tracer's `ServiceContext`, through the installed
/// instrument (a no-op without a tracer, so tracing costs nothing when it is off).
struct TraceParentCarrier: Extractor, Injector {
    typealias Carrier = [String: String]

    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }

    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }

    /// A context whose span is `parent` (a remote parent: it lives in another process, or nowhere).
    static func context(_ parent: TraceParent) -> ServiceContext {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(["traceparent": parent.description], into: &context, using: TraceParentCarrier())
        return context
    }

    /// The `traceparent` of the span `context` carries, if a tracer is installed.
    static func traceParent(of context: ServiceContext) -> TraceParent? {
        var carrier = [String: String]()
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: TraceParentCarrier())
        return carrier["traceparent"].flatMap(TraceParent.init)
    }
}
