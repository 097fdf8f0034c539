import FerryCore

extension ReplayEvent {
    /// Decodes the row last appended to `arena` (a row of ``ReplayQueries/events(_:relation:order:)``).
    init(_ arena: borrowing ReplayArena) throws(ReplayDecodingError) {
        let f = arena.fields
        guard f.count == ReplayEvent.fieldCount else {
            throw ReplayDecodingError("an event row has \(f.count) fields, expected \(ReplayEvent.fieldCount)")
        }
        let (version, type, hasSession) = arena.bytes.withUnsafeBytes { buffer in
            func slice(_ text: ReplayText) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: buffer[Int(text.offset)..<Int(text.offset) + Int(max(0, text.count))])
            }
            return (CopyText.canonicalInteger(slice(f[1])), JobEventType(copyText: slice(f[2])),
                    !f[8].isNull && f[8].count == 1 && buffer[Int(f[8].offset)] == UInt8(ascii: "t"))
        }
        guard let version else { throw ReplayDecodingError("an event row has no version") }
        self.init(
            jobID: f[0], version: version, type: type, typeName: f[2], recordedAt: f[3], lease: f[4], text: f[5],
            bytesDone: f[6], bytesTotal: f[7], hasSession: hasSession, json: f[9], runAt: f[10],
            enqueued: .init(
                kind: f[11], queue: f[12], batch: f[13], priority: f[14], maxAttempts: f[15], account: f[16],
                source: f[17], destination: f[18], idempotencyKey: f[19], spec: f[20], metadata: f[21], runAt: f[22],
                bytesTotal: f[23]))
    }
}
