import ServerSupport

/// A value guarded by a mutex; the portable `Mutex` of this package.
public typealias Locked<Value> = ServerSupport.Locked<Value>
