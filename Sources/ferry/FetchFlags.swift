import ArgumentParser
import FerryCore

/// Flags only fetch jobs take.
struct FetchFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Expected SHA-256 of the file (URL or Dropbox file); a mismatch fails the job.", valueName: "hex"))
    var sha256: String?

    @Flag(help: "Dropbox folder: include subfolders.")
    var recursive = false

    @Option(help: ArgumentHelp("Dropbox: fetch thumbnails of this size instead of the files (w32h32 … w2048h1536).", valueName: "size"))
    var thumbnail: String?

    @Option(help: ArgumentHelp("Flickr: photo size suffix (s q t m n w z c b h k). Default: Flickr's 500 px.", valueName: "suffix"))
    var size: String?

    @Option(help: ArgumentHelp("Flickr: fetch at most this many photos, newest first.", valueName: "n"))
    var max: Int64?

    @Option(help: ArgumentHelp("Flickr: the account holding the API key. Default: the only Flickr account.", valueName: "name"))
    var account: String?

    @Option(name: .customLong("page-size"), help: ArgumentHelp("Dropbox folder: entries per list_folder page (1 … 2000). Default: 2000.", valueName: "n"))
    var pageSize: Int64?

    var options: FetchOptions {
        FetchOptions(
            sha256: sha256, recursive: recursive ? true : nil, thumbnail: thumbnail, size: size, max: max,
            account: account, pageSize: pageSize)
    }
}
