from diagrams.models.projects import Pin, Project
from diagrams.models.services import Service, ServiceSnapshot
from diagrams.models.sharing import PublicShareToken

__all__ = ["Pin", "Project", "PublicShareToken", "Service", "ServiceSnapshot"]
