/// A photo size rendered once into the on-disk cache and served from there.
struct RenderedPhoto: Sendable {
    var diskPath: String
    /// Strong entity tag derived from the content, so it is the same after a restart.
    var etag: String
}
