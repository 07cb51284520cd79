"""Placeholder: the JSON API v1 is being written."""

from ninja import NinjaAPI

api = NinjaAPI(title="Paddock API", version="1", urls_namespace="api")
