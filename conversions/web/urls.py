"""The server-rendered pages."""

from django.urls import path

from conversions.web import keys, labs, review, sessions

urlpatterns = [
    path("", sessions.dashboard, name="dashboard"),
    path("sessions/new", sessions.new_session, name="new_session"),
    path("sessions/<uuid:session_id>/", sessions.session_page, name="session_page"),
    path("account/keys", keys.keys_page, name="keys"),
    path("account/keys/<int:key_id>/revoke", keys.revoke, name="key_revoke"),
    path("labs/", labs.labs_home, name="lab_home"),
    path("labs/<int:lab_id>/settings", labs.settings_page, name="lab_settings"),
    path("labs/<int:lab_id>/subjects", labs.save_subject, name="lab_subject_save"),
    path("labs/<int:lab_id>/subjects/import", labs.import_subjects, name="lab_subjects_import"),
    path("labs/<int:lab_id>/subjects/<int:subject_pk>/delete", labs.delete_subject, name="lab_subject_delete"),
    path("review/", review.queue_page, name="review_queue"),
    path("review/sessions/<uuid:session_id>/", review.session_page, name="review_session"),
    path("review/sessions/<uuid:session_id>/bundle.json", review.bundle, name="review_bundle"),
    path("review/sessions/<uuid:session_id>/<slug:action>", review.act, name="review_action"),
]
