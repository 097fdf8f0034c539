import FerryCore
import FerryStore
import Tracing

extension Span {
    /// Puts an attempt's outcome on its span: the label, bytes, and status (error with the recorded error text,
    /// which Ferry keeps free of secrets, as in events).
    func recordOutcome(_ outcome: JobOutcome, label: String) {
        attributes["ferry.outcome"] = label
        if case .int(let bytes)? = outcome.data["bytes_done"] { attributes["ferry.bytes"] = bytes }
        let message: String? = switch outcome.data["error"] ?? outcome.data["reason"] {
        case .string(let text)?: text
        default: nil
        }
        switch outcome.type {
        case .succeeded: setStatus(SpanStatus(code: .ok))
        case .failed, .retryScheduled: setStatus(SpanStatus(code: .error, message: message))
        default: break
        }
    }
}
