/// Dropbox `WriteMode`: what to do when something already exists at the target path.
enum WriteMode: Sendable, Equatable {
    case add
    case overwrite
    /// Overwrite only if the current file has this rev.
    case update(String)
}
