#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation

// SwiftUI — views, the view builder, state and the modifiers the example apps use.
// https://developer.apple.com/documentation/swiftui/view
// https://developer.apple.com/documentation/swiftui/viewbuilder
// https://developer.apple.com/documentation/swiftui/state

@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

// Primitive views and scenes have no body: `Body == Never`.
extension Never {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension Never: View {}

public struct EmptyView: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init() { fatalError() }
}

public struct TupleView<T>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init(_ value: T) { fatalError() }
}

public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

@resultBuilder
public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { fatalError() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { fatalError() }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        fatalError()
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
}

@propertyWrapper
public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) { fatalError() }
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set { fatalError() }
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

@propertyWrapper @dynamicMemberLookup
public struct Binding<Value>: DynamicProperty {
    public init(projectedValue: Binding<Value>) { fatalError() }
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set { fatalError() }
    }
    public var projectedValue: Binding<Value> { fatalError() }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { fatalError() }
}

public enum Edge: Int8, CaseIterable, Sendable {
    case top, leading, bottom, trailing

    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let all = Edge.Set(rawValue: 15)
        public static let horizontal = Edge.Set(rawValue: 10)
        public static let vertical = Edge.Set(rawValue: 5)
    }
}

extension View {
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { fatalError() }
    nonisolated public func onDisappear(perform action: (() -> Void)? = nil) -> some View { fatalError() }
    nonisolated public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { fatalError() }
    nonisolated public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { fatalError() }
    nonisolated public func disabled(_ disabled: Bool) -> some View { fatalError() }
}
