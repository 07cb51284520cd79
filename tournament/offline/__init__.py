"""A table without Wi-Fi: writes that may be sent twice (Idempotency-Key), the tables' web
app (manifest, service worker) (DOMAIN.md "Without Wi-Fi")."""
