"""The site's plumbing: middleware, Content-Security-Policy, rate limits, the client's address, the
console's filter, the header's context, the health check, account pages and the confirmation
step.
"""
