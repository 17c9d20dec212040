from django.urls import path

from conversions import views

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("sessions/new", views.new_session, name="new_session"),
    path("sessions/<uuid:session_id>/", views.session_page, name="session_page"),
]
