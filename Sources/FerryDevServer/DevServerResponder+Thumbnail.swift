import FerryCore
import HTTPTypes
import Hummingbird

/// `files/get_thumbnail_v2` and `files/get_thumbnail`: checks the source like Dropbox does
/// (extension, size, real image data) and returns a flat image of the requested format, sized as
/// Dropbox sizes it for the mode.
extension DevServerResponder {
    private static let thumbnailSizes: Set<String> = [
        "w32h32", "w64h64", "w128h128", "w256h256", "w480h320", "w640h480", "w960h640", "w1024h768", "w2048h1536",
    ]

    func thumbnail(_ account: Account, request: Request, endpoint: Endpoint) throws -> Response {
        let route = endpoint.rawValue
        let isV2 = endpoint == .getThumbnailV2
        let arg = try requireObject(try contentArgument(request, route: route), route: route,
                                    known: isV2 ? ArgumentFields.thumbnailV2 : ArgumentFields.thumbnail)
        let pathText: String
        if isV2 {
            guard let resource = arg["resource"] else { throw DropboxError.badRequest(route: route, "missing required field 'resource'") }
            // `link` is a struct member (its fields sit beside the tag); it is refused below in any case.
            switch try ArgumentFields.unionTag(resource, route: route, field: "resource", valued: ["path"]) {
            case "path": pathText = try requiredString(resource, "path", route: route, prefix: "resource.")
            case "link": throw DropboxError.badRequest(route: route, "resource: shared links are not supported by the Ferry dev server")
            default: throw DropboxError.badRequest(route: route, "resource: unknown tag")
            }
        } else {
            pathText = try requiredString(arg, "path", route: route)
        }
        let format = try optionalTag(arg, "format", route: route) ?? "jpeg"
        guard format == "jpeg" || format == "png" || (format == "webp" && isV2) else {
            throw DropboxError.badRequest(route: route, "format: unknown tag '\(format)'")
        }
        let size = try optionalTag(arg, "size", route: route) ?? "w64h64"
        guard Self.thumbnailSizes.contains(size), let box = Self.parseSize(size) else {
            throw DropboxError.badRequest(route: route, "size: unknown tag '\(size)'")
        }
        let mode = try optionalTag(arg, "mode", route: route) ?? "strict"
        guard ["strict", "bestfit", "fitone_bestfit"].contains(mode) else {
            throw DropboxError.badRequest(route: route, "mode: unknown tag '\(mode)'")
        }

        let entry = try resolveReadPath(account, pathText, route: route)
        guard entry.isFile else { throw lookupError("not_file") }
        let ext = entry.name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard entry.name.contains("."), ImageProbe.supportedExtensions.contains(ext) else {
            throw DropboxError.routeError(summary: "unsupported_extension", .tag("unsupported_extension"))
        }
        guard entry.size <= 20 * 1024 * 1024 else {
            throw DropboxError.routeError(summary: "unsupported_image", .tag("unsupported_image"))
        }
        guard let diskPath = backend.files.diskPath(account.name, entry: entry),
              let head = try? DiskFile.openForReading(diskPath).read(at: 0, count: 256 * 1024)
        else {
            throw DropboxError.routeError(summary: "conversion_error", .tag("conversion_error"))
        }
        // Bytes that are no image at all cannot be thumbnailed (`unsupported_image`); an image whose header
        // breaks off before its size is one that failed to convert.
        guard let probe = ImageProbe.probe(Array(head.readableBytesView)) else {
            throw DropboxError.routeError(summary: "unsupported_image", .tag("unsupported_image"))
        }
        guard probe.isComplete else {
            throw DropboxError.routeError(summary: "conversion_error", .tag("conversion_error"))
        }
        let (width, height) = Self.thumbnailDimensions(box: box, source: probe, mode: mode)

        let image: [UInt8]
        var headers = HTTPFields()
        switch format {
        case "png":
            image = ThumbnailRenderer.png(width: width, height: height)
            headers[.contentType] = "image/png"
        case "webp":
            image = ThumbnailRenderer.webp(width: width, height: height)
            headers[.contentType] = "image/webp"
        default:
            image = ThumbnailRenderer.jpeg(width: width, height: height)
            headers[.contentType] = "image/jpeg"
        }
        let metadata = entry.metadata(tagged: false)
        let result: JSONValue = endpoint == .getThumbnailV2 ? .object(["file_metadata": metadata]) : metadata
        headers[.dropboxAPIResult] = result.asciiJSONText
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }

    /// A void union member such as `format`, when present.
    private func optionalTag(_ arg: JSONValue, _ key: String, route: String) throws(DropboxError) -> String? {
        guard let member = arg[key], !member.isNull else { return nil }
        return try ArgumentFields.unionTag(member, route: route, field: key)
    }

    private static func parseSize(_ tag: String) -> (width: Int, height: Int)? {
        let parts = tag.dropFirst().split(separator: "h")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        return (w, h)
    }

    /// Dropbox's modes (files.stone): `strict` scales down to fit inside the box; `bestfit` to fit inside the box
    /// or the box turned 90°, whichever keeps the image larger; `fitone_bestfit` scales down to cover the box or
    /// the box turned 90°, whichever needs the smaller image. The aspect ratio is always kept and nothing is
    /// scaled up. Without the source's size, the box itself.
    static func thumbnailDimensions(box: (width: Int, height: Int), source: ImageProbe, mode: String) -> (Int, Int) {
        guard let sw = source.width, let sh = source.height, sw > 0, sh > 0 else { return box }
        let w = Double(sw)
        let h = Double(sh)
        let (bw, bh) = (Double(box.width), Double(box.height))
        func fit(_ width: Double, _ height: Double) -> Double { min(width / w, height / h) }
        func cover(_ width: Double, _ height: Double) -> Double { max(width / w, height / h) }
        var scale: Double
        switch mode {
        case "bestfit": scale = max(fit(bw, bh), fit(bh, bw))
        case "fitone_bestfit": scale = min(cover(bw, bh), cover(bh, bw))
        default: scale = fit(bw, bh)
        }
        scale = min(scale, 1)
        return (max(1, min(16_383, Int((w * scale).rounded()))), max(1, min(16_383, Int((h * scale).rounded()))))
    }
}
