import Foundation
print("CallsBenchmark: placeholder")
