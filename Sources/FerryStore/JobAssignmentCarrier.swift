/// A type that carries a ``JobAssignment`` and reads and writes its fields as its own properties (`job.source`,
/// `job.spec` …): the fields are declared once, in ``JobAssignment``.
@dynamicMemberLookup
public protocol JobAssignmentCarrier {
    var assignment: JobAssignment { get set }
}

extension JobAssignmentCarrier {
    /// A field of ``assignment`` by its name.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<JobAssignment, Value>) -> Value {
        get { assignment[keyPath: keyPath] }
        set { assignment[keyPath: keyPath] = newValue }
    }
}
