import FerryCore
import FerryProviders
import Foundation
import Logging

extension FolderListingCursor {
    /// Counts a listed item and answers its path below the fetch (`prefix` is the listed folder's), or `nil` when
    /// its name is no safe local name (skipped, counted and logged: names are remote input).
    mutating func admit(_ item: some ListedItem, prefix: String, logger: Logger) -> String? {
        listed += 1
        guard SafePath.component(item.name) != nil else {
            skippedUnsafe += 1
            logger.warning("skipping a listed item without a safe local name", metadata: ["name": "\(item.name.debugDescription)"])
            return nil
        }
        return prefix.isEmpty ? item.name : prefix + "/" + item.name
    }

    /// The details of the listing job of the subfolder at `relative`: `details` with the subfolder's path, and the
    /// fetch's filter; `nil` when the fetch is not recursive. Counts the subfolder.
    mutating func subfolder(_ details: some FolderFetchDetails, relative: String, filterJSON: JSONValue?) -> [String: JSONValue]? {
        guard details.isRecursive else { return nil }
        folders += 1
        var childDetails = details
        childDetails.prefix = relative
        var encoded = (try? JSONValue(encoding: childDetails))?.objectValue ?? [:]
        if let filterJSON { encoded[ListingFilter.specKey] = filterJSON }
        return encoded
    }

    /// Where the listed file at `path` (below the fetch) goes below `root`, or `nil`: the filter skips it, or it has
    /// no safe path there (skipped and counted). Counts the file.
    mutating func fileTarget(_ path: String, size: Int64?, modified: Date, root: String, filter: FileFilter?) -> String? {
        if let filter, case .skip = filter.verdict(path: path, size: size ?? 0, modified: modified) { return nil }
        guard let target = SafePath.join(root: root, relative: path), SafePath.isInside(target, root: root) else {
            skippedUnsafe += 1
            return nil
        }
        files += 1
        return target
    }
}
