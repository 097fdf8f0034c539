extension ProviderOptions {
    /// The value of a declared option, typed; `nil` when it was not given.
    public subscript<Value>(_ option: TypedProviderOption<Value>) -> Value? {
        values[option.name].flatMap(option.read)
    }

    /// True when the option was given.
    public func contains<Value>(_ option: TypedProviderOption<Value>) -> Bool {
        values[option.name] != nil
    }
}
