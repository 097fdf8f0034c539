import Logging

/// What a folder copy's listing learns of its destination folder for each page of children: which of their
/// destinations it does not hold, so those children's first attempts write without looking there first.
///
/// An answer is a hint, never a permission: a destination wrongly called absent costs a write of the same
/// content (as `if_changed: false` would), and an index that cannot answer says nothing (each child looks).
public protocol CopyDestinationIndex: Sendable {
    /// The destinations (as the children name them) the folder was seen not to hold. Never throws.
    func absent(destinations: [String], logger: Logger) async -> Set<String>
}
