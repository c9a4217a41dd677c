"""The process mt runs in: the CPU cores it may use, resident memory kept flat, pure-Python
work spread over worker processes, and signal handlers set for the span of a block.
"""
