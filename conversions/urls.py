from django.urls import path

from conversions import key_views, lab_views, review_views, views

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("sessions/new", views.new_session, name="new_session"),
    path("sessions/<uuid:session_id>/", views.session_page, name="session_page"),
    path("account/keys", key_views.keys_page, name="keys"),
    path("account/keys/<int:key_id>/revoke", key_views.revoke, name="key_revoke"),
    path("labs/", lab_views.labs_home, name="lab_home"),
    path("labs/<int:lab_id>/settings", lab_views.settings_page, name="lab_settings"),
    path("labs/<int:lab_id>/subjects", lab_views.save_subject, name="lab_subject_save"),
    path("labs/<int:lab_id>/subjects/import", lab_views.import_subjects, name="lab_subjects_import"),
    path("labs/<int:lab_id>/subjects/<int:subject_pk>/delete", lab_views.delete_subject, name="lab_subject_delete"),
    path("review/", review_views.queue_page, name="review_queue"),
    path("review/sessions/<uuid:session_id>/", review_views.session_page, name="review_session"),
    path("review/sessions/<uuid:session_id>/bundle.json", review_views.bundle, name="review_bundle"),
    path("review/sessions/<uuid:session_id>/<slug:action>", review_views.act, name="review_action"),
]
