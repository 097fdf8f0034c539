import FerryDropbox
import FerryProviders
import Logging

/// Which of a folder copy's Dropbox destinations the destination folder does not hold: the folder is listed once
/// (recursively, 2,000 entries a request) when the first page of children asks, instead of a `get_metadata` per
/// child. Dropbox lists in no particular order, so unlike S3's range walk the whole folder is read, up to
/// `maxEntries`; a bigger folder, or a listing that fails, answers nothing (each child looks, as before). A
/// folder that does not exist yet holds nothing: every child is absent.
///
/// Paths compare as Dropbox does, case-insensitively (`path_lower` against the lowercased child path). The one
/// listing serves the whole attempt: a file someone else puts there meanwhile is written over (or, with
/// `mode=add`, kept beside) as a copy with `--no-if-changed` would.
actor DropboxDestinationListing: CopyDestinationIndex {
    let caller: DropboxCaller
    /// The destination folder as children name it, ending in `/` (`/Backup/`, or `/` for the whole Dropbox).
    let folder: String
    /// Entries read at most before giving up.
    let maxEntries: Int

    private enum State {
        case unread
        case held(Set<String>)
        case unknown
    }

    private var state = State.unread

    init(caller: DropboxCaller, folder: String, maxEntries: Int = 200_000) {
        self.caller = caller
        self.folder = folder
        self.maxEntries = maxEntries
    }

    func absent(destinations: [String], logger: Logger) async -> Set<String> {
        if case .unread = state { state = await read(logger: logger) }
        guard case .held(let held) = state else { return [] }
        let lowerFolder = folder.lowercased()
        return Set(destinations.filter { text in
            guard let path = try? DropboxLocation(text, field: "to", line: nil).path.lowercased(), path.hasPrefix(lowerFolder) else {
                return false
            }
            return !held.contains(path)
        })
    }

    private func read(logger: Logger) async -> State {
        let pages = DropboxFolderPages(caller: caller, path: DropboxFolderPages.folder(of: folder), recursive: true, action: "listing the destination")
        var held = Set<String>()
        var cursor: String?
        do {
            while true {
                let page = try await pages.page(after: cursor)
                for entry in page.entries {
                    if case .deleted = entry { continue }
                    held.insert(entry.pathLower)
                }
                guard held.count <= maxEntries else {
                    logger.notice("the destination folder holds more than \(maxEntries) entries; each copy looks for itself")
                    return .unknown
                }
                guard page.hasMore else { return .held(held) }
                cursor = page.cursor
            }
        } catch let error as DropboxError where error.jobFailure(doing: "listing the destination").code == "not_found" {
            return .held([])
        } catch {
            logger.notice("the destination could not be listed; each copy looks for itself", metadata: ["error": "\(error)"])
            return .unknown
        }
    }
}
