/// What the application declares it may ask for: Core Location's usage-description keys
/// (`NSLocationWhenInUseUsageDescription`, `NSLocationAlwaysAndWhenInUseUsageDescription`,
/// `NSLocationTemporaryUsageDescriptionDictionary`). Each value is the reason shown to the user.
///
/// Nothing declared is fine while the provider never needs to ask (an operator pre-authorized the
/// engine); a request that would make the engine ask ends with ``ConfigurationError/noUsageDeclared``
/// instead of waiting forever.
public struct UsageDeclarations: Sendable, Hashable {
    /// Why the application needs location while in use, or `nil` when not declared.
    public var whenInUse: String?
    /// Why the application needs location at all times, or `nil` when not declared.
    public var always: String?
    /// Temporary-full-accuracy purpose keys and the reason shown for each.
    public var temporaryFullAccuracyPurposes: [String: String]

    /// Creates declarations.
    public init(whenInUse: String? = nil, always: String? = nil, temporaryFullAccuracyPurposes: [String: String] = [:]) {
        self.whenInUse = whenInUse
        self.always = always
        self.temporaryFullAccuracyPurposes = temporaryFullAccuracyPurposes
    }

    /// Nothing declared.
    public static let none = UsageDeclarations()

    /// The level to ask for when the application wants `preferred`: always if wanted and declared,
    /// else when-in-use if declared, else always if that is all that is declared; `nil` when nothing is.
    public func level(preferring preferred: AuthorizationLevel) -> AuthorizationLevel? {
        if preferred == .always && always != nil { return .always }
        if whenInUse != nil { return .whenInUse }
        if always != nil { return .always }
        return nil
    }

    /// The reason shown for `level`.
    func usageDescription(for level: AuthorizationLevel) -> String {
        (level == .always ? always : whenInUse) ?? ""
    }
}
