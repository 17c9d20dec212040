from django.contrib import admin
from django.urls import include, path

from conversions.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", api.urls),
    path("", include("conversions.web.urls")),
]

# A database out of reach is a 503 that says so, not a bare 500 (nwbportal.views.server_error).
handler500 = "nwbportal.views.server_error"
