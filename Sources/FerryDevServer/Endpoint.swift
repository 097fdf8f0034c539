/// The routes the dev server implements, named as in Dropbox's docs (`files/upload`) plus the
/// OAuth endpoints.
enum Endpoint: String, CaseIterable, Sendable {
    case oauthToken = "oauth2/token"
    case oauthAuthorize = "oauth2/authorize"
    case revokeToken = "auth/token/revoke"
    case getCurrentAccount = "users/get_current_account"
    case getSpaceUsage = "users/get_space_usage"
    case getMetadata = "files/get_metadata"
    case listFolder = "files/list_folder"
    case listFolderContinue = "files/list_folder/continue"
    case listFolderGetLatestCursor = "files/list_folder/get_latest_cursor"
    case createFolder = "files/create_folder_v2"
    case delete = "files/delete_v2"
    case upload = "files/upload"
    case uploadSessionStart = "files/upload_session/start"
    case uploadSessionAppendV2 = "files/upload_session/append_v2"
    case uploadSessionAppend = "files/upload_session/append"
    case uploadSessionFinish = "files/upload_session/finish"
    case uploadSessionFinishBatchV2 = "files/upload_session/finish_batch_v2"
    case uploadSessionFinishBatch = "files/upload_session/finish_batch"
    case uploadSessionFinishBatchCheck = "files/upload_session/finish_batch/check"
    case download = "files/download"
    case getThumbnailV2 = "files/get_thumbnail_v2"
    case getThumbnail = "files/get_thumbnail"

    enum Style { case oauth, rpc, upload, download }

    /// Maps a request path (`/2/files/upload`, `/oauth2/token`) to its endpoint.
    init?(path: String) {
        if path.hasPrefix("/2/") {
            guard let endpoint = Endpoint(rawValue: String(path.dropFirst(3))), endpoint.style != .oauth else { return nil }
            self = endpoint
        } else if path.hasPrefix("/oauth2/") {
            guard let endpoint = Endpoint(rawValue: String(path.dropFirst())), endpoint.style == .oauth else { return nil }
            self = endpoint
        } else {
            return nil
        }
    }

    var style: Style {
        switch self {
        case .oauthToken, .oauthAuthorize: return .oauth
        case .upload, .uploadSessionStart, .uploadSessionAppendV2, .uploadSessionAppend, .uploadSessionFinish: return .upload
        case .download, .getThumbnailV2, .getThumbnail: return .download
        default: return .rpc
        }
    }

    /// Routes that commit files and so can meet `too_many_write_operations`.
    var isCommit: Bool {
        self == .upload || self == .uploadSessionFinish || self == .uploadSessionFinishBatchV2 || self == .uploadSessionFinishBatch
    }

    /// The route-specific faults this route can get.
    var faultKind: FaultInjector.RouteKind {
        if isCommit { return .commit }
        if self == .uploadSessionAppendV2 || self == .uploadSessionAppend { return .append }
        return .other
    }
}
