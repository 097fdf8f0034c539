/// Thrown before an irreversible step (a commit, a rename over the destination, a deletion) when this worker can
/// no longer be sure its claim is still its own: no heartbeat got through for so long that another worker may have
/// rescued the job and be running it too. The attempt ends without recording anything (its events would be refused
/// anyway) and without the step; the job's next attempt, here or elsewhere, does it once.
public struct LeaseLapsed: Error, Sendable, CustomStringConvertible {
    /// `lease_lapsed`: stable, for logs and metrics.
    public static let code = "lease_lapsed"
    /// The step that was not taken, in a few words (`committing`, `renaming into place`).
    public let step: String

    public init(before step: String) {
        self.step = step
    }

    public var description: String {
        "\(Self.code): no heartbeat reached the database recently enough to be sure this worker still holds the job; not \(step)"
    }
}
