#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// SwiftUI — the text, controls and containers the example apps use.
// https://developer.apple.com/documentation/swiftui/text
// https://developer.apple.com/documentation/swiftui/button
// https://developer.apple.com/documentation/swiftui/textfield
// https://developer.apple.com/documentation/swiftui/securefield
// https://developer.apple.com/documentation/swiftui/vstack
// https://developer.apple.com/documentation/swiftui/list
// https://developer.apple.com/documentation/swiftui/navigationview

public struct Text: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init<S: StringProtocol>(_ content: S) { fatalError() }
}

public struct Button<Label: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    @preconcurrency nonisolated public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {
        fatalError()
    }
}

extension Button where Label == Text {
    @preconcurrency nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {
        fatalError()
    }
}

public struct TextField<Label: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension TextField where Label == Text {
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>) { fatalError() }
}

public struct SecureField<Label: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension SecureField where Label == Text {
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>) { fatalError() }
}

public struct HorizontalAlignment: Equatable, Sendable {
    public static let leading = HorizontalAlignment()
    public static let center = HorizontalAlignment()
    public static let trailing = HorizontalAlignment()
}

public struct VStack<Content: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) { fatalError() }
}

public struct List<SelectionValue: Hashable, Content: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension List where SelectionValue == Never {
    nonisolated public init(@ViewBuilder content: () -> Content) { fatalError() }
}

@available(iOS, introduced: 13.0, deprecated: 100000.0, message: "use NavigationStack or NavigationSplitView instead")
public struct NavigationView<Content: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init(@ViewBuilder content: () -> Content) { fatalError() }
}
