print("push-server: work in progress (issue 7)")
