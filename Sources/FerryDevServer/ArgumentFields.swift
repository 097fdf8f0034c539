import FerryCore

/// The members each route's argument may have, from Dropbox's API spec (files.stone): Dropbox's argument decoder
/// refuses any other member with a 400, so the dev server does too, or a client's typo would pass here and fail there.
enum ArgumentFields {
    /// `CommitInfo` (the `commit` of `upload_session/finish`).
    static let commitInfo: Set<String> = ["path", "mode", "autorename", "client_modified", "mute", "property_groups", "strict_conflict"]
    /// `UploadArg`: a `CommitInfo` and the content hash of the body.
    static let upload = commitInfo.union(["content_hash"])
    static let uploadSessionStart: Set<String> = ["close", "session_type", "content_hash"]
    static let uploadSessionAppend: Set<String> = ["cursor", "close", "content_hash"]
    static let uploadSessionCursor: Set<String> = ["session_id", "offset"]
    static let uploadSessionFinish: Set<String> = ["cursor", "commit", "content_hash"]
    static let uploadSessionFinishBatch: Set<String> = ["entries"]
    static let asyncJob: Set<String> = ["async_job_id"]
    static let download: Set<String> = ["path", "rev"]
    static let getMetadata: Set<String> = [
        "path", "include_media_info", "include_deleted", "include_has_explicit_shared_members", "include_property_groups",
    ]
    /// `ListFolderArg` (also the argument of `list_folder/get_latest_cursor`).
    static let listFolder: Set<String> = [
        "path", "recursive", "include_media_info", "include_deleted", "include_has_explicit_shared_members", "include_mounted_folders",
        "limit", "shared_link", "include_property_groups", "include_non_downloadable_files", "include_restorable_info",
    ]
    static let listFolderContinue: Set<String> = ["cursor"]
    static let createFolder: Set<String> = ["path", "autorename"]
    static let delete: Set<String> = ["path", "parent_rev"]
    static let thumbnailV2: Set<String> = ["resource", "format", "size", "mode", "exclude_media_info", "preserve_transparency"]
    static let thumbnail: Set<String> = ["path", "format", "size", "mode", "exclude_media_info"]
    /// Boolean flags that only change what a listing, metadata or thumbnail answer includes: checked for type,
    /// then ignored (the dev server has no media info, deleted entries, sharing or mounts to add).
    static let ignoredFlags: [String] = [
        "include_media_info", "include_deleted", "include_has_explicit_shared_members", "include_mounted_folders",
        "include_non_downloadable_files", "include_restorable_info", "exclude_media_info", "preserve_transparency",
    ]
}

extension ArgumentFields {
    /// Refuses an object member that is not in `known`, as Dropbox does (400), and checks that the flags it
    /// defines but the dev server ignores are booleans.
    static func refuseUnknown(_ value: JSONValue, known: Set<String>, route: String, field: String) throws(DropboxError) {
        guard case .object(let members) = value else { return }
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badRequest(route: route, "\(field): unknown field '\(unknown)'")
        }
        for flag in ignoredFlags where known.contains(flag) {
            if let member = members[flag], !member.isNull, member.boolValue == nil {
                throw .badRequest(route: route, "\(flag): expected boolean")
            }
        }
    }

    /// The tag of a union argument (a bare string or `{".tag": ...}`). The object form may hold nothing but the
    /// tag and, for members in `valued`, the member's own value.
    static func unionTag(_ value: JSONValue, route: String, field: String, valued: Set<String> = []) throws(DropboxError) -> String {
        guard let tag = value.unionTag else { throw .badRequest(route: route, "\(field): expected a union tag") }
        if case .object(let members) = value {
            let allowed: Set<String> = valued.contains(tag) ? [".tag", tag] : [".tag"]
            if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw .badRequest(route: route, "\(field): unknown field '\(unknown)'")
            }
        }
        return tag
    }
}
