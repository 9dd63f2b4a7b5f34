#if canImport(Darwin)
#error("Apple API stubs are for the Linux compile check only")
#endif

import Foundation
import UIKit

// SwiftUI — the app, its scene and the UIKit app delegate adaptor.
// https://developer.apple.com/documentation/swiftui/app
// https://developer.apple.com/documentation/swiftui/windowgroup
// https://developer.apple.com/documentation/swiftui/uiapplicationdelegateadaptor

@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    @MainActor @preconcurrency public static func main() { fatalError() }
}

@MainActor @preconcurrency
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: Scene {}

@resultBuilder
public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { fatalError() }
}

public struct WindowGroup<Content: View>: Scene {
    public typealias Body = Never
    public var body: Never { fatalError() }
    nonisolated public init(@ViewBuilder content: () -> Content) { fatalError() }
}

public protocol DynamicProperty {}

@MainActor @preconcurrency @propertyWrapper
public struct UIApplicationDelegateAdaptor<DelegateType: NSObject & UIApplicationDelegate>: DynamicProperty {
    @MainActor @preconcurrency public init(_ delegateType: DelegateType.Type = DelegateType.self) { fatalError() }
    @MainActor @preconcurrency public var wrappedValue: DelegateType { fatalError() }
}
