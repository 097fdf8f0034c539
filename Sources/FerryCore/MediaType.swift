/// Media types guessed from a file name's extension, for stores that keep a `Content-Type` with each object
/// (S3): the kinds a photo or file pipeline moves. Anything else is `application/octet-stream`.
public enum MediaType {
    /// The fallback when the extension says nothing.
    public static let unknown = "application/octet-stream"

    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "tif": "image/tiff", "tiff": "image/tiff",
        "bmp": "image/bmp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "dng": "image/x-adobe-dng",
        "cr2": "image/x-canon-cr2", "nef": "image/x-nikon-nef", "arw": "image/x-sony-arw",
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "avi": "video/x-msvideo",
        "mkv": "video/x-matroska", "webm": "video/webm", "3gp": "video/3gpp",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "flac": "audio/flac", "ogg": "audio/ogg",
        "aac": "audio/aac", "opus": "audio/opus",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "7z": "application/x-7z-compressed", "bz2": "application/x-bzip2",
        "xz": "application/x-xz", "zst": "application/zstd", "json": "application/json", "jsonl": "application/x-ndjson",
        "xml": "application/xml", "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html",
        "htm": "text/html", "css": "text/css", "js": "text/javascript", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ]

    /// The media type for `name`'s extension (case-insensitive; `IMG_0001.JPG` is `image/jpeg`).
    public static func guess(forFileName name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return unknown }
        return byExtension[last[last.index(after: dot)...].lowercased()] ?? unknown
    }
}
