import Foundation

/// Where the values the fold reads are in an event's data, as the server printed it (jsonb's canonical text,
/// COPY-escaped). A value's bytes there are exactly what `data->'key'` prints, so jsonb values are compared and
/// written back without being rendered again; `data->>'key'` is the same bytes for numbers, booleans, objects
/// and arrays, and the unescaped content for strings.
///
/// Reading the whole `data` once costs the server less than a dozen `->>` calls per event (each copies the
/// datum): measured 1.4 µs against 4.7 µs per event.
struct EventData {
    enum Kind: UInt8 {
        case missing, string, number, boolean, null, object, array
    }

    /// Offset (in the arena) and length of each key's value, and its kind.
    private(set) var offsets = [Int32](repeating: 0, count: EventDataKey.allCases.count)
    private(set) var counts = [Int32](repeating: 0, count: EventDataKey.allCases.count)
    private(set) var kinds = [Kind](repeating: .missing, count: EventDataKey.allCases.count)
    /// `data ? 'session'`: for an object, the key exists; for an array, a string element equals it; for a
    /// string scalar, it equals it.
    private(set) var hasSession = false

    mutating func reset() {
        for index in kinds.indices { kinds[index] = .missing }
        hasSession = false
    }

    func kind(_ key: EventDataKey) -> Kind { kinds[key.rawValue] }

    /// The value's bytes (jsonb text), `->` style; `nil` when the key is missing.
    func json(_ key: EventDataKey) -> ReplayText? {
        kinds[key.rawValue] == .missing ? nil : ReplayText(offset: offsets[key.rawValue], count: counts[key.rawValue])
    }

    /// Scans the top level of `text` (a COPY field at arena offset `base`) once, recording the keys the fold reads.
    mutating func scan(_ text: UnsafeRawBufferPointer, base: Int) {
        reset()
        var index = 0
        let count = text.count
        func skipSpace() {
            while index < count && (text[index] == 32) { index += 1 }
        }
        /// Skips one value starting at `index`; returns its kind.
        func skipValue() -> Kind {
            guard index < count else { return .missing }
            switch text[index] {
            case UInt8(ascii: "\""):
                skipString()
                return .string
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let kind: Kind = text[index] == UInt8(ascii: "{") ? .object : .array
                var depth = 0
                while index < count {
                    let byte = text[index]
                    if byte == UInt8(ascii: "\"") {
                        skipString()
                        continue
                    }
                    if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                    if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return kind
                        }
                    }
                    index += 1
                }
                return kind
            default:
                let first = text[index]
                while index < count, text[index] != UInt8(ascii: ","), text[index] != UInt8(ascii: "}"), text[index] != UInt8(ascii: "]") {
                    index += 1
                }
                switch first {
                case UInt8(ascii: "n"): return .null
                case UInt8(ascii: "t"), UInt8(ascii: "f"): return .boolean
                default: return .number
                }
            }
        }
        func skipString() {
            index += 1
            while index < count {
                let byte = text[index]
                if byte == UInt8(ascii: "\\") {
                    // COPY's "\\\\" is one JSON backslash; the character it escapes follows, itself doubled
                    // by COPY when it is a backslash.
                    index += index + 2 < count && text[index + 2] == UInt8(ascii: "\\") ? 4 : 3
                    continue
                }
                index += 1
                if byte == UInt8(ascii: "\"") { return }
            }
        }
        func isSession(_ start: Int, _ end: Int) -> Bool {
            end - start == 9 && memcmp(text.baseAddress! + start + 1, "session", 7) == 0
        }

        guard count > 0 else { return }
        switch text[0] {
        case UInt8(ascii: "{"):
            index = 1
            while index < count {
                skipSpace()
                guard index < count, text[index] == UInt8(ascii: "\"") else { return }
                let keyStart = index
                skipString()
                let keyEnd = index
                skipSpace()
                index += 1  // ':'
                skipSpace()
                let valueStart = index
                let kind = skipValue()
                let length = keyEnd - keyStart - 2
                if length > 0 && length < EventDataKey.byLength.count {
                    for key in EventDataKey.byLength[length]
                    where memcmp(text.baseAddress! + keyStart + 1, key.literal.utf8Start, length) == 0 {
                        offsets[key.rawValue] = Int32(base + valueStart)
                        counts[key.rawValue] = Int32(index - valueStart)
                        kinds[key.rawValue] = kind
                        if key == .session { hasSession = true }
                    }
                }
                skipSpace()
                index += 1  // ',' or '}'
            }
        case UInt8(ascii: "["):
            index = 1
            while index < count {
                skipSpace()
                let start = index
                let kind = skipValue()
                if kind == .string && isSession(start, index) { hasSession = true }
                if kind == .missing { return }
                skipSpace()
                index += 1
            }
        case UInt8(ascii: "\""):
            index = 0
            _ = skipValue()
            hasSession = isSession(0, index)
        default:
            return
        }
    }
}
