print("benchmark")
