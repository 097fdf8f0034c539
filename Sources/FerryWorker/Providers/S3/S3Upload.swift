import Crypto
import FerryCore
import FerryProviders
import FerryS3
import FerryStore
import Foundation
import Tracing
import NIOCore

/// One attempt at one S3 upload (see ``S3UploadHandler``), or at one copy to S3 (see ``S3CopyWriter``).
struct S3Upload: Sendable {
    /// Where the bytes come from.
    enum Source: Sendable {
        /// A local file: parts stream from disk, hashed first for `Content-MD5`.
        case file(OwnedFile)
        /// Another provider's object, read one part at a time into memory (hashed there) as the part goes up;
        /// parts the store holds for the same source version are kept without reading them again.
        case copy(any CopySource)
    }

    let handler: S3UploadHandler
    let job: ClaimedJob
    let context: JobContext
    let client: S3Client
    let source: Source
    let size: Int64
    let bucket: String
    let key: String
    let options: S3UploadDetails
    /// `x-amz-meta-*` stored with the object (the source's modification time).
    let metadata: [String: String]
    /// The option, else a guess from the key's extension.
    var contentType: String { options.contentType ?? MediaType.guess(forFileName: key) }
    /// Bytes handed to the network by this attempt's part streams (live progress).
    let sent = ByteTally()

    /// `PutObject` with `Content-MD5`; the ETag of a plain upload is the MD5, so it is checked too.
    func single() async throws -> String {
        // A copy holds the whole object in memory while it goes up: that takes one of the process's part slots.
        guard case .copy = source else { return try await singleHeld() }
        await handler.partSlots.acquire()
        do {
            let etag = try await singleHeld()
            await handler.partSlots.release()
            return etag
        } catch {
            await handler.partSlots.release()
            throw error
        }
    }

    private func singleHeld() async throws -> String {
        let (md5, body) = try await prepare(0..<size)
        let etag = try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.upload.single": .bool(true)]) {
            try await call("uploading") {
                // The object appears with this request: fenced like a commit, on every try.
                try context.ensureLease(before: "storing the object")
                return try await client.putObject(
                    bucket: bucket, key: key, body: body, checksum: S3Checksum(md5: md5),
                    contentType: contentType, storageClass: options.storageClass, metadata: metadata)
            }
        }
        try checkPlainETag(etag, md5: md5, what: "the object")
        return etag
    }

    /// A part's MD5 and body: a file's part is hashed from disk and then streamed; a copy's is read into memory.
    func prepare(_ range: Range<Int64>) async throws -> ([UInt8], S3Body) {
        switch source {
        case .file:
            return (try await digest(range), body(range))
        case .copy(let remote):
            try await context.throttle(range.count)
            let bytes = try await remote.read(range, context: context)
            var md5 = Insecure.MD5()
            bytes.withUnsafeReadableBytes { md5.update(bufferPointer: $0) }
            return (Array(md5.finalize()), .bytes(bytes))
        }
    }

    /// Whether `held`, a part the store has from an earlier attempt, is the same bytes as `range` of the source:
    /// for a file, by the MD5 of the file's bytes; for a copy, held parts are of the recorded source version
    /// (checked before resuming), so the same size is enough.
    func keeps(_ held: S3Part, _ range: Range<Int64>) async throws -> [UInt8]? {
        guard held.size == Int64(range.count) else { return nil }
        switch source {
        case .file:
            let md5 = try await digest(range)
            return S3MultipartETag.unquoted(held.etag).lowercased() == Self.hex(md5) ? md5 : nil
        case .copy:
            return Self.bytes(hex: S3MultipartETag.unquoted(held.etag).lowercased())
        }
    }

    /// A multipart upload, resumed from the recorded one when the store still has it.
    /// `checkSource` runs before the commit: a local file must still be the one enqueued.
    func multipart(plan: S3PartPlan, recorded: S3UploadCursor?, checkSource: @Sendable () throws -> Void) async throws -> String {
        let (uploadID, held) = try await openMultipart(plan: plan, recorded: recorded)
        do {
            let (parts, md5s) = try await sendParts(plan: plan, uploadID: uploadID, held: held)
            try checkSource()
            let etag = try await JobSpan.run("ferry.upload.commit", ["ferry.bytes": .int64(size), "ferry.s3.parts": .int64(Int64(parts.count))]) {
                try await call("completing the multipart upload") {
                    // Not aborted after this (shouldAbort): the rescuing attempt resumes these parts.
                    try context.ensureLease(before: "completing the multipart upload")
                    return try await client.completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID, parts: parts)
                }
            }
            try await verify(etag: etag, md5s: md5s)
            return etag
        } catch {
            // Parts nobody will complete are billed until aborted: abort unless a later attempt will resume.
            if shouldAbort(after: error) { await abort(uploadID, reason: error) }
            throw error
        }
    }

    /// The recorded upload and the parts the store holds of it when it still has it, else a new upload.
    private func openMultipart(plan: S3PartPlan, recorded: S3UploadCursor?) async throws -> (uploadID: String, held: [Int: S3Part]) {
        if let recorded, let parts = try await existingParts(recorded.uploadID) {
            context.logger.info("resuming multipart upload", metadata: ["parts_held": "\(parts.count)", "parts": "\(plan.partCount)"])
            return (recorded.uploadID, parts)
        }
        let uploadID = try await call("starting a multipart upload") {
            try await client.createMultipartUpload(
                bucket: bucket, key: key, contentType: contentType, storageClass: options.storageClass, metadata: metadata)
        }
        return (uploadID, [:])
    }

    /// Sends every part the store does not hold yet, recording progress after each: the parts and their MD5s, in
    /// part order. Up to `partsInFlight` parts travel at once (one connection each), as the AWS CLI does: a single
    /// large file then fills the link. Each part streams from disk in small pieces, so memory stays bounded.
    private func sendParts(plan: S3PartPlan, uploadID: String, held: [Int: S3Part]) async throws -> (parts: [S3Part], md5s: [[UInt8]]) {
        var md5s = [[UInt8]?](repeating: nil, count: plan.partCount)
        var parts = [S3Part?](repeating: nil, count: plan.partCount)
        var done = held.count
        var bytesDone: Int64 = 0
        try await withThrowingTaskGroup(of: (Int, S3Part, [UInt8], Bool).self) { group in
            var pending = plan.parts.makeIterator()
            func launch() -> Bool {
                guard let (number, range) = pending.next() else { return false }
                let heldPart = held[number]
                group.addTask { try await sendPart(number, range, held: heldPart, plan: plan, uploadID: uploadID) }
                return true
            }
            for _ in 0..<handler.partsInFlight where launch() {}
            while let (number, part, md5, sent) = try await group.next() {
                try context.checkCancellation()
                parts[number - 1] = part
                md5s[number - 1] = md5
                bytesDone += Int64(plan.range(ofPart: number).count)
                if sent {
                    done += 1
                    if case .copy = source { context.noteBytes(bytesDone) }
                    var cursor = S3UploadCursor(uploadID: uploadID, key: key, partSize: plan.partSize, part: number, etag: part.etag, partsDone: done)
                    cursor.sourceVersion = sourceVersion
                    try await context.reportProgress(bytesDone: bytesDone, bytesTotal: size, session: cursor.json)
                }
                _ = launch()
            }
        }
        return (parts.compactMap { $0 }, md5s.compactMap { $0 })
    }

    /// One part: kept when the store holds the same bytes already, else sent. Answers (number, part, MD5, sent).
    private func sendPart(
        _ number: Int, _ range: Range<Int64>, held heldPart: S3Part?, plan: S3PartPlan, uploadID: String
    ) async throws -> (Int, S3Part, [UInt8], Bool) {
        // The slot covers hashing too: every part being read holds buffers.
        await handler.partSlots.acquire()
        do {
            if let heldPart, let md5 = try await keeps(heldPart, range) {
                await handler.partSlots.release()
                return (number, heldPart, md5, false)
            }
            let (md5, body) = try await prepare(range)
            let part = try await JobSpan.run(
                "ferry.s3.part", ["ferry.s3.part_number": .int64(Int64(number)), "ferry.bytes": .int64(Int64(range.count))]
            ) {
                try await call("sending part \(number) of \(plan.partCount)") {
                    try await client.uploadPart(
                        bucket: bucket, key: key, uploadID: uploadID, partNumber: number, body: body,
                        checksum: S3Checksum(md5: md5))
                }
            }
            await handler.partSlots.release()
            try checkPlainETag(part.etag, md5: md5, what: "part \(number)")
            return (number, part, md5, true)
        } catch {
            await handler.partSlots.release()
            throw error
        }
    }

    /// Aborts the multipart upload, so its parts are not billed; a failure to abort is logged, not thrown.
    private func abort(_ uploadID: String, reason: any Error) async {
        context.logger.notice("aborting the multipart upload", metadata: ["reason": "\(reason)"])
        // In a task of its own: this one may be cancelled, which would cancel the abort's request too.
        let (client, bucket, key) = (client, bucket, key)
        let failure = await Task { () -> S3Error? in
            // Parts still arriving can make a store refuse or undo the abort: try a few times.
            var last: S3Error?
            for attempt in 0..<3 {
                if attempt > 0 { try? await Task.sleep(for: .milliseconds(500 * attempt)) }
                do {
                    try await client.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID)
                    return nil
                } catch let error as S3Error {
                    if error.code == .noSuchUpload { return nil }
                    last = error
                } catch {
                    return nil
                }
            }
            return last
        }.value
        if let failure {
            context.logger.warning(
                "the multipart upload could not be aborted; its parts stay until a lifecycle rule removes them",
                metadata: ["error": "\(failure)"])
        }
    }

    /// The parts the store holds for `uploadID`, or `nil` when the upload is gone (completed or aborted).
    func existingParts(_ uploadID: String) async throws -> [Int: S3Part]? {
        do {
            let parts = try await client.listParts(bucket: bucket, key: key, uploadID: uploadID)
            return Dictionary(parts.map { ($0.partNumber, $0) }, uniquingKeysWith: { _, last in last })
        } catch {
            if error.code == .noSuchUpload {
                context.logger.notice("the recorded multipart upload is gone; starting a new one")
                return nil
            }
            throw error.jobFailure(doing: "listing the parts already uploaded")
        }
    }

    /// The completed object must have the file's size and, where the store uses the usual form, the ETag
    /// made of the parts' MD5s.
    func verify(etag: String, md5s: [[UInt8]]) async throws {
        let expected = S3MultipartETag(partMD5s: md5s)
        let unquoted = S3MultipartETag.unquoted(etag)
        if unquoted.contains("-") && !expected.matches(etag) {
            throw JobFailure.retryable("etag_mismatch", "the store's ETag \(unquoted) is not \(expected.value), the ETag of the file's parts")
        }
        let info = try await call("checking the uploaded object") { try await client.headObject(bucket: bucket, key: key) }
        guard info.contentLength == size else {
            throw JobFailure.retryable("size_mismatch", "the store holds \(info.contentLength) bytes, the file has \(size)")
        }
    }

    func shouldAbort(after error: any Error) -> Bool {
        // A cancel request ends the job for good, whatever error the interrupted call ended with.
        if context.cancelRequested { return true }
        if let failure = error as? JobFailure {
            switch failure.kind {
            case .permanent: return true
            case .retryable: return job.attempt >= job.maxAttempts
            case .rateLimited, .held, .shortage: return false
            }
        }
        // A shutdown or a lost claim leaves the upload for the next attempt.
        return false
    }

    func checkPlainETag(_ etag: String, md5: [UInt8], what: String) throws {
        let unquoted = S3MultipartETag.unquoted(etag).lowercased()
        // Encrypted objects (SSE-KMS, SSE-C) have ETags that are not the MD5; Content-MD5 was checked on arrival.
        guard unquoted.utf8.count == 32, unquoted.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return }
        guard unquoted == Self.hex(md5) else {
            throw JobFailure.retryable("etag_mismatch", "the store's ETag for \(what) is not the MD5 of the bytes sent")
        }
    }

    /// The version of a copy's source, recorded with the multipart upload's state.
    var sourceVersion: String? {
        if case .copy(let remote) = source { return remote.facts.version }
        return nil
    }

    /// MD5 of a byte range of the file, read off the cooperative pool into one of the process's pooled buffers
    /// (nothing allocated per part), up to 8 MiB per trip so that a cancel is seen between them.
    func digest(_ range: Range<Int64>) async throws -> [UInt8] {
        guard case .file(let file) = source else { throw JobFailure.permanent("internal", "a copy has no local file to hash") }
        var md5 = Insecure.MD5()
        let path = job.source
        var offset = range.lowerBound
        try await BufferPool.shared.withBuffer { buffer in
            while offset < range.upperBound {
                try context.checkCancellation()
                let (start, end) = (offset, min(range.upperBound, offset + 8 << 20))
                md5 = try await BlockingIO.run { [md5] in
                    var md5 = md5
                    var at = start
                    while at < end {
                        let piece = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[..<Int(min(Int64(buffer.bytes.count), end - at))])
                        let count = try file.read(into: piece, at: at)
                        guard count == piece.count else {
                            throw JobFailure.permanent("source_changed", "\(path) became shorter during the upload; enqueue it again")
                        }
                        md5.update(bufferPointer: UnsafeRawBufferPointer(piece))
                        at += Int64(count)
                    }
                    return md5
                }
                offset = end
            }
        }
        return Array(md5.finalize())
    }

    func body(_ range: Range<Int64>) -> S3Body {
        guard case .file(let file) = source else { return .bytes(ByteBuffer()) }
        return .stream(
            FileByteStream(
                file: file, start: range.lowerBound, end: range.upperBound, pieceSize: handler.pieceSize,
                bandwidth: context.bandwidth
            ) { [sent, context, size] _, buffer in context.noteBytes(min(size, sent.add(buffer.readableBytes))) },
            length: Int64(range.count))
    }

    func call<T: Sendable>(_ action: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as S3Error {
            throw error.jobFailure(doing: action)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The 16 bytes of a plain ETag's hex MD5, or `nil` for any other form.
    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var out = [UInt8]()
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
