/// Where a streamed enqueue (``FerryClient/enqueueStream(_:options:outcomes:)``) takes its jobs from.
public enum EnqueueInput: Sendable {
    /// JSON Lines (`plainKind == nil`) or plain lines of sources of that kind, read from a file descriptor; closed
    /// when reading ends if `owns`.
    case lines(descriptor: Int32, owns: Bool, plainKind: JobKind?)
    /// Sources named one by one; directories walked when recursive.
    case operands(EnqueueOperands)
}
