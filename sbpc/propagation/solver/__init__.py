"""The optimal strategy's exact machinery: the pairwise cost problem, its
shrinking, repeated layers, a lower bound from them, and a memo of the
shrink's pure steps."""
