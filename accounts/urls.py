from django.urls import path

from accounts import views

urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("signup/", views.signup_view, name="signup"),
    path("logout/", views.logout_view, name="logout"),
    path("switch/", views.switch_organization_view, name="switch-organization"),
    path("welcome/<str:token>/", views.welcome_view, name="welcome"),
    path("join/<str:token>/", views.join_view, name="join"),
]
