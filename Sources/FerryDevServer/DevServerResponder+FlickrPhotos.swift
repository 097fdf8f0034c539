import Hummingbird

/// The Flickr photo host stand-in (`live.staticflickr.com`): `GET /flickr/photos/{server}/{id}_{secret}[_{suffix}].jpg`
/// serves a real JPEG of the size the suffix names, with the validators and `Range` support
/// of a static host. A wrong server, id, secret or suffix is a 404.
extension DevServerResponder {
    func flickrPhoto(_ rest: String, request: Request) throws -> Response {
        guard request.method == .get || request.method == .head else { throw methodNotAllowed("GET, HEAD") }
        let notFound = DropboxError.text(.notFound, "Not Found")
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix(".jpg") else { throw notFound }
        let name = parts[1].dropLast(4).split(separator: "_", omittingEmptySubsequences: false)
        guard name.count == 2 || name.count == 3,
              let photo = backend.flickr.photo(id: String(name[0]), secret: String(name[1])),
              photo.server == parts[0],
              let size = FlickrPhotoSize(suffix: name.count == 3 ? String(name[2]) : nil),
              // `_.jpg` (an empty suffix) is not a URL Flickr hands out.
              name.count == 2 || size != .medium500
        else { throw notFound }

        let rendered = try backend.flickr.rendered(photo, size: size)
        let file = try DiskFile.openForReading(rendered.diskPath)
        let urlPath = "/flickr/photos/" + rest
        let stats = backend.stats
        let isGet = request.method == .get
        let response = StaticFileResponse(
            file: file, size: try file.size(), contentType: "image/jpeg", etag: rendered.etag, lastModified: photo.uploaded
        )
        return response.response(
            to: request, rate: downloadRate, pauseAt: downloadPauseAt,
            started: { _ in
                if isGet { stats.record { $0.flickrPhotoDownloadsPerPath[urlPath, default: 0] += 1 } }
            },
            sent: { bytes in stats.record { $0.flickrBytesSent += bytes } }
        )
    }
}
