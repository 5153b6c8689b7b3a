/// The application's configuration cannot serve a request: it must be fixed in code, not retried.
///
/// A struct wrapping a private code, so that new cases do not break users' `switch`es.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case noUsageDeclared
        case undeclaredPurposeKey(String)
    }

    let code: Code

    /// Authorization must be asked for, but the configuration declares no usage
    /// (``UsageDeclarations/whenInUse`` or ``UsageDeclarations/always``): nothing may be asked.
    public static let noUsageDeclared = ConfigurationError(code: .noUsageDeclared)

    /// The request names a temporary-full-accuracy purpose key the configuration does not declare.
    public static func undeclaredPurposeKey(_ key: String) -> ConfigurationError {
        ConfigurationError(code: .undeclaredPurposeKey(key))
    }

    public var description: String {
        switch code {
        case .noUsageDeclared:
            "authorization is not determined and the configuration declares no usage to ask for: set "
                + "LocationEngineConfiguration.usage.whenInUse (or .always) to the reason shown to the user"
        case .undeclaredPurposeKey(let key):
            "purpose key \"\(key)\" is not declared: add it to "
                + "LocationEngineConfiguration.usage.temporaryFullAccuracyPurposes"
        }
    }
}
