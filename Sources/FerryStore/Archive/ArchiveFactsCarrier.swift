/// A type that carries an ``ArchiveFacts`` and reads and writes its facts as its own properties
/// (`record.sha256`, `manifest.jobs` …): the facts are declared once, in ``ArchiveFacts``.
@dynamicMemberLookup
public protocol ArchiveFactsCarrier {
    var facts: ArchiveFacts { get set }
}

extension ArchiveFactsCarrier {
    /// A fact of ``facts`` by its name.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ArchiveFacts, Value>) -> Value {
        get { facts[keyPath: keyPath] }
        set { facts[keyPath: keyPath] = newValue }
    }
}
