/// Told the fate of every job or file of a streamed enqueue as it is read: taken, skipped (by the filter, or a link
/// or special file the walk leaves out) or refused. Called from the enqueue's reading thread only, in input order.
/// `ferry enqueue` keeps them for `--dry-run` and names skipped files on stderr.
public protocol EnqueueFates: AnyObject, Sendable {
    func take(source: String, destination: String, line: Int?)
    func skip(source: String, reason: String, filtered: Bool, line: Int?)
    func refuse(source: String, destination: String?, reason: String, line: Int?)
}
