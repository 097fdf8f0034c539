import Foundation

/// One switchover or failover of a failover run, with its figures.
struct FailoverEvent: Sendable {
    enum Kind: String, Sendable {
        case switchover
        case kill = "kill -9"
    }

    let kind: Kind
    let at: Date
    /// The primary before, and after.
    var from = ""
    var to = ""
    /// A switchover: until the new primary had its synchronous standby.
    var seconds: Double?
    /// A kill: until the first write (any event) and the first job finished on the new primary.
    var firstWrite: Double?
    var firstFinished: Double?
    /// A kill: until the killed node was the new primary's synchronous standby again.
    var rejoined: Double?
}
