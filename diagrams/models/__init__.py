from diagrams.models.projects import Pin, Project
from diagrams.models.services import Service, ServiceSnapshot

__all__ = ["Pin", "Project", "Service", "ServiceSnapshot"]
