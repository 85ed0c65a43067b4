"""The service editor (create, edit, delete) and the history page, through the browser's
forms: the API's rules, errors beside their fields, nothing lost and nothing written on an
error."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from diagrams.tests.helpers import new_project, new_service, put, write_services


@pytest.fixture
def admin(factory, org):
    return factory.member(org, role="admin")


@pytest.fixture
def browser(factory, admin):
    return factory.member_client(admin, enforce_csrf=False)


@pytest.fixture
def project(api):
    return new_project(api)


def form_data(**overrides) -> dict:
    data = {
        "name": "Checkout",
        "description": "Takes orders",
        "category": "core",
        "owner": "team-shop",
        "flows": "buy, refund",
        "consumes-name": ["cart.updated", ""],
        "consumes-category": ["", ""],
        "consumes-owner": ["", ""],
        "produces-name": ["orders.placed", "orders.cancelled", ""],
        "produces-category": ["events", "", ""],
        "produces-owner": ["", "team-b", ""],
        "extras-key": ["repo", "tier", ""],
        "extras-value": ["git@x:shop.git", "1", ""],
    }
    data.update(overrides)
    return data


def history_total(api, project) -> int:
    return api.get(f"/v1/projects/{project}/history").json()["total"]


def row_slices(html: str, fieldset: str) -> list[str]:
    """The HTML of each rendered row of one fieldset (consumes, produces, extras)."""
    start = html.index(f'data-rows="{fieldset}"')
    end = html.index("</fieldset>", start)
    section = html[
        start : html.index("<template", start) if "<template" in html[start:end] else end
    ]
    return section.split('<div class="editor-row" data-row>')[1:]


def test_create_through_the_form(browser, api, project):
    page = browser.get(f"/projects/{project}/services/new/")
    assert page.status_code == 200
    assert b'name="produces-name"' in page.content and b"csrfmiddlewaretoken" in page.content
    response = browser.post(f"/projects/{project}/services/new/", form_data())
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{project}/services/"
    body = api.get(f"/v1/projects/{project}/services/checkout").json()
    assert body["name"] == "Checkout" and body["description"] == "Takes orders"
    assert body["category"] == "core" and body["owner"] == "team-shop"
    assert body["flows"] == ["buy", "refund"]
    assert body["consumes"] == [{"name": "cart.updated"}]
    assert body["produces"] == [
        {"name": "orders.placed", "category": "events"},
        {"name": "orders.cancelled", "owner": "team-b"},
    ]
    assert body["extras"] == {"repo": "git@x:shop.git", "tier": "1"}
    assert body["updatedByType"] == "MEMBER"
    listing = browser.get(response["Location"])
    assert "Service “Checkout” added." in listing.content.decode()


def test_topic_names_of_the_project_are_offered(browser, api, project):
    new_service(
        api,
        project,
        {"name": "Billing", "produces": [{"name": "invoices.sent"}], "category": "money"},
    )
    html = browser.get(f"/projects/{project}/services/new/").content.decode()
    # with the topic's category and owner as the project has them (none here)
    assert (
        '<datalist id="topic-names"><option value="invoices.sent" data-category="" '
        'data-owner="">' in html
    )
    assert '<option value="money">' in html
    assert 'list="topic-names"' in html


def test_invalid_form_keeps_everything_and_shows_errors_beside_fields(browser, api, project):
    before = history_total(api, project)
    long_topic = "t" * 256
    data = form_data(**{"name": "N" * 61, "produces-name": ["orders.placed", long_topic, ""]})
    response = browser.post(f"/projects/{project}/services/new/", data)
    assert response.status_code == 400
    html = response.content.decode()
    # everything typed is still there
    assert f'value="{"N" * 61}"' in html
    assert ">Takes orders</textarea>" in html
    assert 'value="buy, refund"' in html and 'value="team-shop"' in html
    assert 'value="git@x:shop.git"' in html and 'value="cart.updated"' in html
    # the name's error right after the name field
    name_at = html.index('name="name"')
    assert "At most 60 characters." in html[name_at : html.index('name="description"')]
    # the topic's error in the second produced row, not in the first
    rows = row_slices(html, "produces")
    assert 'value="orders.placed"' in rows[0] and "field-error" not in rows[0]
    assert f'value="{long_topic}"' in rows[1]
    assert "At most 255 characters." in rows[1] and 'aria-invalid="true"' in rows[1]
    assert "Nothing was saved" in html
    assert history_total(api, project) == before
    assert api.get(f"/v1/projects/{project}/services").json() == []


def test_duplicate_name_is_shown_on_the_name(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    before = history_total(api, project)
    response = browser.post(
        f"/projects/{project}/services/new/", form_data(name="checkout", description="Second")
    )
    assert response.status_code == 409
    html = response.content.decode()
    name_at = html.index('name="name"')
    # the names differ, their address would not: the message names the other service
    assert (
        "Too close to the service “Checkout”: both names make the same address (slug)"
        in html[name_at : html.index('name="description"')]
    )
    assert 'value="checkout"' in html and ">Second</textarea>" in html
    assert 'value="orders.cancelled"' in html
    assert history_total(api, project) == before


def test_a_taken_name_is_said_with_the_other_errors_at_once(browser, api, project):
    """Not one round of errors, then another for the name once they are fixed."""
    new_service(api, project, {"name": "Checkout"})
    response = browser.post(
        f"/projects/{project}/services/new/",
        form_data(name="Checkout", **{"extras-key": ["", "tier"], "extras-value": ["x", "1"]}),
    )
    assert response.status_code == 400
    html = response.content.decode()
    name_at = html.index('name="name"')
    assert (
        "Another service of this project has this name."
        in html[name_at : html.index('name="description"')]
    )
    assert html.count('class="field-error"') >= 2  # the extras row's error too
    # keeping its own name while fixing other fields is no conflict
    new_service(api, project, {"name": "Billing"})
    response = browser.post(
        f"/projects/{project}/services/billing/edit/",
        {"name": "Billing", "extras-key": [""], "extras-value": ["orphan"]},
    )
    assert response.status_code == 400
    assert "Another service of this project has this name." not in response.content.decode()


def test_extras_need_distinct_keys(browser, api, project):
    before = history_total(api, project)
    response = browser.post(
        f"/projects/{project}/services/new/",
        form_data(**{"extras-key": ["repo", "repo", ""], "extras-value": ["a", "b", "lonely"]}),
    )
    assert response.status_code == 400
    rows = row_slices(response.content.decode(), "extras")
    assert "field-error" not in rows[0]
    assert "This key is listed twice." in rows[1]
    assert "A key is required." in rows[2] and 'value="lonely"' in rows[2]
    assert history_total(api, project) == before


def test_duplicate_topic_in_a_direction(browser, project):
    response = browser.post(
        f"/projects/{project}/services/new/", form_data(**{"produces-name": ["a", "a", ""]})
    )
    assert response.status_code == 400
    rows = row_slices(response.content.decode(), "produces")
    assert "The same topic is listed twice." in rows[1]


def test_edit_shows_the_service_and_clears_fields(browser, api, project):
    new_service(
        api,
        project,
        {
            "name": "Checkout",
            "description": "Takes orders",
            "owner": "team-shop",
            "flows": ["buy"],
            "extras": {"repo": "r"},
            "produces": [{"name": "orders.placed", "flows": ["buy"], "extras": {"schema": "v2"}}],
        },
    )
    url = f"/projects/{project}/services/checkout/edit/"
    html = browser.get(url).content.decode()
    assert 'value="Checkout"' in html and ">Takes orders</textarea>" in html
    assert 'value="orders.placed"' in html and 'value="repo"' in html
    response = browser.post(
        url,
        {
            "name": "Checkout",
            "description": "",
            "category": "",
            "owner": "",
            "flows": "",
            "produces-name": ["orders.placed", ""],
            "produces-category": ["", ""],
            "produces-owner": ["team-x", ""],
            "extras-key": [""],
            "extras-value": [""],
        },
    )
    assert response.status_code == 302
    body = api.get(f"/v1/projects/{project}/services/checkout").json()
    assert "description" not in body and "owner" not in body
    assert body["flows"] == [] and body["extras"] == {}
    # what the form does not show (a topic's flows and extras) is kept
    assert body["produces"] == [
        {"name": "orders.placed", "owner": "team-x", "flows": ["buy"], "extras": {"schema": "v2"}}
    ]
    raw = api.get(f"/v1/projects/{project}/services/checkout/raw").json()
    assert raw["description"] is None and raw["flows"] is None and raw["extras"] is None


def test_edit_renames(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    response = browser.post(
        f"/projects/{project}/services/checkout/edit/", {"name": "Checkout Service"}
    )
    assert response.status_code == 302
    assert api.get(f"/v1/projects/{project}/services/checkout-service").status_code == 200
    assert api.get(f"/v1/projects/{project}/services/checkout").status_code == 404


def test_the_old_edit_address_of_a_renamed_service_leads_to_it(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    browser.post(f"/projects/{project}/services/checkout/edit/", {"name": "Checkout Service"})
    response = browser.get(f"/projects/{project}/services/checkout/edit/")
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{project}/services/checkout-service/edit/"
    # a post to the old address writes nothing: the form is stale (test_a_save_after_...)
    before = history_total(api, project)
    assert (
        browser.post(f"/projects/{project}/services/checkout/edit/", {"name": "Other"}).status_code
        == 409
    )
    assert history_total(api, project) == before
    # a deleted service's address is 404, not a redirect to nothing
    api.delete(f"/v1/projects/{project}/services/checkout-service")
    assert browser.get(f"/projects/{project}/services/checkout/edit/").status_code == 404


def opened_as(html: str) -> dict:
    """The hidden fields saying which service, at which version, a form shows."""
    return {
        "service": re.search(r'name="service" value="([^"]+)"', html).group(1),
        "version": re.search(r'name="version" value="(\d+)"', html).group(1),
    }


def opened_form(browser, project, slug: str) -> dict:
    """The edit form as the page gives it, hidden fields included."""
    html = browser.get(f"/projects/{project}/services/{slug}/edit/").content.decode()
    return form_data(name="Checkout", **opened_as(html))


def test_a_save_after_a_colleagues_change_keeps_both_and_says_so(browser, api, project):
    """Two tabs or two colleagues: the second save of a form opened before the first change
    does not silently put back what the first one changed."""
    new_service(api, project, {"name": "Checkout", "owner": "team-a"})
    url = f"/projects/{project}/services/checkout/edit/"
    stale = opened_form(browser, project, "checkout")
    api.put(f"/v1/projects/{project}/services/checkout", {"owner": "team-b"}, "application/json")
    before = history_total(api, project)
    response = browser.post(url, stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed this service at" in html and "after you opened it" in html
    # what they made of the field both changed, and the way to the service's own history
    assert (
        "You both changed the owner (theirs: “team-b”): the form keeps what you typed there."
        in html
    )
    service_id = opened_as(html)["service"]
    history = f"/projects/{project}/history/?service={service_id}"
    assert f'(<a href="{history}">its history</a> shows the change)' in html
    assert 'value="team-shop"' in html  # what was typed is kept
    assert history_total(api, project) == before
    owner = api.get(f"/v1/projects/{project}/services/checkout").json()["owner"]
    assert owner == "team-b"
    # the form now carries the version it was shown with: saving again writes over it
    again = {**stale, **opened_as(html)}
    assert browser.post(url, again).status_code == 302
    assert api.get(f"/v1/projects/{project}/services/checkout").json()["owner"] == "team-shop"


class _Fields(HTMLParser):
    """What a browser submits of a page's form: each named input's value and each
    textarea's text, in order (the page has one form with fields)."""

    def __init__(self):
        super().__init__()
        self.data, self._textarea = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("name") and attrs.get("type") != "submit":
            self.data.setdefault(attrs["name"], []).append(attrs.get("value") or "")
        elif tag == "textarea" and attrs.get("name"):
            self._textarea = attrs["name"]
            self.data.setdefault(self._textarea, []).append("")

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea][-1] += data

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None


def submitted(html: str) -> dict:
    parser = _Fields()
    parser.feed(html)
    fields = {k: v[0] if len(v) == 1 else v for k, v in parser.data.items()}
    fields.pop("csrfmiddlewaretoken", None)
    return fields


def test_after_a_colleagues_change_the_form_takes_theirs_where_the_member_typed_nothing(
    browser, api, project
):
    """Two tabs: one renames the service and adds an extra, the other then saves a new
    description and owner. The second form comes back holding the rename and the extra
    (left as they were in it), and the description and owner typed; saving it again keeps
    both people's changes instead of renaming the service back."""
    base = f"/v1/projects/{project}/services"
    assert browser.post(f"/projects/{project}/services/new/", form_data()).status_code == 302
    stale = opened_form(browser, project, "checkout")
    extras = {"repo": "git@x:shop.git", "tier": "1", "oncall": "ann"}
    colleague = {"name": "Till", "owner": "team-b", "extras": extras}
    assert put(api, f"{base}/checkout", colleague).status_code == 200
    typed = {**stale, "description": "Takes and keeps orders", "owner": "team-c"}
    response = browser.post(f"/projects/{project}/services/checkout/edit/", typed)
    assert response.status_code == 409
    html = response.content.decode()
    assert "The form below holds their name and extras." in html
    assert "You both changed the owner (theirs: “team-b”): the form keeps what you typed" in html
    again = submitted(html)
    assert again["name"] == "Till" and again["description"] == "Takes and keeps orders"
    assert again["owner"] == "team-c" and "oncall" in again["extras-key"]
    assert again["flows"] == "buy, refund"  # neither touched it
    response = browser.post(f"/projects/{project}/services/till/edit/", again)
    assert response.status_code == 302
    saved = api.get(f"{base}/till").json()
    assert saved["name"] == "Till"  # not renamed back
    assert saved["description"] == "Takes and keeps orders" and saved["owner"] == "team-c"
    assert saved["extras"] == extras
    assert [t["name"] for t in saved["produces"]] == ["orders.placed", "orders.cancelled"]


def test_where_both_changed_a_field_the_message_says_what_the_colleague_made_of_it(
    browser, api, project
):
    """The form keeps what the member typed where both changed a part; the colleague's
    value, which the form no longer shows, is in the message: a list named up to five,
    the rest counted; a part they emptied, as none."""
    base = f"/v1/projects/{project}/services"
    assert browser.post(f"/projects/{project}/services/new/", form_data()).status_code == 302
    stale = opened_form(browser, project, "checkout")
    topics = [{"name": f"t{i}.seen"} for i in range(7)]
    colleague = {"name": "Checkout", "description": None, "consumes": topics}
    assert put(api, f"{base}/checkout", colleague).status_code == 200
    typed = {
        **stale,
        "description": "Takes <orders>",
        "consumes-name": ["cart.emptied", ""],
        "consumes-category": ["", ""],
        "consumes-owner": ["", ""],
    }
    response = browser.post(f"/projects/{project}/services/checkout/edit/", typed)
    assert response.status_code == 409
    html = response.content.decode()
    assert (
        "You both changed the description (theirs: none) and topics it consumes (theirs: "
        "t0.seen, t1.seen, t2.seen, t3.seen, t4.seen and 2 more): the form keeps what you "
        "typed there." in html
    )
    # each by its field too, below the fold of a long form
    assert (
        '<p class="hint meanwhile" id="description-theirs">Also changed meanwhile, to none: the '
        "form keeps what you typed.</p>" in html
    )
    consumes = html[html.index('data-rows="consumes"') : html.index('data-rows="produces"')]
    assert "Also changed meanwhile, to t0.seen, t1.seen, t2.seen, t3.seen, t4.seen and 2" in (
        consumes
    )
    assert html.count('class="hint meanwhile"') == 2  # not by the parts only one changed
    again = submitted(html)
    assert again["description"] == "Takes <orders>" and again["consumes-name"][0] == "cart.emptied"
    assert "&lt;orders&gt;" in html and "<orders>" not in html


def test_a_save_after_a_rename_or_a_deletion_keeps_what_was_typed(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    stale = opened_form(browser, project, "checkout")
    url = f"/projects/{project}/services/checkout/edit/"
    api.put(f"/v1/projects/{project}/services/checkout", {"name": "Till"}, "application/json")
    before = history_total(api, project)
    response = browser.post(url, stale)
    assert response.status_code == 409 and history_total(api, project) == before
    html = response.content.decode()
    assert "and renamed it “Till”" in html
    assert ">Takes orders</textarea>" in html  # typed, kept
    assert f'action="/projects/{project}/services/till/edit/"' in html
    api.delete(f"/v1/projects/{project}/services/till")
    response = browser.post(f"/projects/{project}/services/till/edit/", stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "This service was deleted by" in html and "Add service adds it again" in html
    assert f'action="/projects/{project}/services/new/"' in html
    # an address that never held a service is still a plain 404
    assert browser.post(f"/projects/{project}/services/nobody/edit/", stale).status_code == 404


def test_a_stale_form_does_not_overwrite_a_new_service_of_the_same_name(browser, api, project):
    """Deleted and added again meanwhile: the new Checkout starts again at version 1, like
    the form's; the form also says which service it showed."""
    new_service(api, project, {"name": "Checkout"})
    stale = opened_form(browser, project, "checkout")
    api.delete(f"/v1/projects/{project}/services/checkout")
    new_service(api, project, {"name": "Checkout", "owner": "team-new"})
    response = browser.post(f"/projects/{project}/services/checkout/edit/", stale)
    assert response.status_code == 409
    assert "The service you opened was deleted, and" in response.content.decode()
    assert api.get(f"/v1/projects/{project}/services/checkout").json()["owner"] == "team-new"


def test_a_stale_form_follows_its_service_renamed_away_not_a_newcomer_of_its_old_name(
    browser, api, project
):
    """Ship is renamed Delivery, then a new, unrelated Ship is added. A form opened on the
    first Ship was taken for a deleted service: saved again, it wrote the old Ship's whole
    form onto the new one, and the change never reached Delivery."""
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Ship", "description": "ships parcels"})
    html = browser.get(f"/projects/{project}/services/ship/edit/").content.decode()
    stale = {**submitted(html), "owner": "team-b"}
    assert put(api, f"{base}/ship", {"name": "Delivery"}).status_code == 200
    new_service(api, project, {"name": "Ship", "description": "a new, unrelated Ship"})
    response = browser.post(f"/projects/{project}/services/ship/edit/", stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "and renamed it “Delivery”" in html and "was deleted" not in html
    assert f'action="/projects/{project}/services/delivery/edit/"' in html
    again = submitted(html)
    assert again["name"] == "Delivery" and again["owner"] == "team-b"
    assert browser.post(f"/projects/{project}/services/delivery/edit/", again).status_code == 302
    assert api.get(f"{base}/delivery").json()["owner"] == "team-b"
    newcomer = api.get(f"{base}/ship").json()
    assert newcomer["description"] == "a new, unrelated Ship" and "owner" not in newcomer


def test_a_stale_form_of_a_deleted_service_keeps_the_new_ones_values_it_left_alone(
    browser, api, project
):
    """Pay is deleted and added again with other values; the member, who changed only the
    category of the old Pay's form, saves again: the rest of the new Pay stays as it is
    (it was put back to the old one's description, owner and topics)."""
    base = f"/v1/projects/{project}/services"
    new_service(
        api,
        project,
        {"name": "Pay", "owner": "fin", "description": "old pay", "produces": [{"name": "paid"}]},
    )
    html = browser.get(f"/projects/{project}/services/pay/edit/").content.decode()
    stale = {**submitted(html), "category": "money"}
    assert api.delete(f"{base}/pay").status_code == 204
    new_service(
        api,
        project,
        {
            "name": "Pay",
            "owner": "fin-new",
            "description": "NEW pay",
            "produces": [{"name": "payment.done"}],
        },
    )
    response = browser.post(f"/projects/{project}/services/pay/edit/", stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "The service you opened was deleted, and" in html
    assert "The form below holds the new service&#x27;s" in html
    again = submitted(html)
    assert again["category"] == "money" and again["owner"] == "fin-new"
    assert browser.post(f"/projects/{project}/services/pay/edit/", again).status_code == 302
    body = api.get(f"{base}/pay").json()
    assert body["category"] == "money" and body["owner"] == "fin-new"
    assert body["description"] == "NEW pay" and body["produces"] == [{"name": "payment.done"}]


@pytest.mark.parametrize("meanwhile", ["edited", "added again"])
def test_the_delete_page_deletes_only_what_it_showed(browser, api, project, meanwhile):
    """A colleague's edit after the page was opened, or a new service of the same name, is
    not deleted unseen: the page says what happened and asks again."""
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Invoice"})
    url = f"/projects/{project}/services/invoice/delete/"
    opened = submitted(browser.get(url).content.decode())
    assert opened["service"] and opened["version"] == "1"
    if meanwhile == "edited":
        assert put(api, f"{base}/invoice", {"description": "B's important edit"}).status_code == 200
    else:
        assert api.delete(f"{base}/invoice").status_code == 204
        new_service(api, project, {"name": "Invoice", "description": "made after the page"})
    response = browser.post(url, opened)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Nothing was deleted." in html
    said = "changed this service" if meanwhile == "edited" else "added another one named “Invoice”"
    assert said in html
    assert api.get(f"{base}/invoice").status_code == 200
    assert browser.post(url, submitted(html)).status_code == 302  # asked again, confirmed
    assert api.get(f"{base}/invoice").status_code == 404


def test_the_delete_page_of_a_renamed_service_asks_at_its_new_address(browser, api, project):
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Invoice"})
    assert put(api, f"{base}/invoice", {"name": "Bill"}).status_code == 200
    response = browser.get(f"/projects/{project}/services/invoice/delete/?from=edit")
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{project}/services/bill/delete/?from=edit"
    # a confirmation posted to the old address deletes nothing
    assert browser.post(f"/projects/{project}/services/invoice/delete/").status_code == 404
    assert api.get(f"{base}/bill").status_code == 200


@pytest.mark.parametrize("newcomer", [False, True])
def test_the_delete_page_follows_its_service_renamed_meanwhile(browser, api, project, newcomer):
    """Invoice's delete page is open; Invoice is renamed Bill (and a new Invoice added). The
    confirmation said the service had been deleted, and asked to delete the newcomer, or
    was a bare 404: it asks again about Bill, at Bill's address, and never deletes the
    newcomer."""
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Invoice"})
    url = f"/projects/{project}/services/invoice/delete/"
    opened = submitted(browser.get(url).content.decode())
    assert put(api, f"{base}/invoice", {"name": "Bill"}).status_code == 200
    if newcomer:
        new_service(api, project, {"name": "Invoice", "description": "newcomer"})
    response = browser.post(url, opened)
    assert response.status_code == 409
    html = response.content.decode()
    assert "renamed this service “Bill”" in html and "Nothing was deleted." in html
    assert f'action="/projects/{project}/services/bill/delete/"' in html
    assert (
        browser.post(f"/projects/{project}/services/bill/delete/", submitted(html)).status_code
        == 302
    )
    assert api.get(f"{base}/bill").status_code == 404
    assert api.get(f"{base}/invoice").status_code == (200 if newcomer else 404)


def test_a_stale_form_of_a_deleted_service_keeps_what_was_typed_when_its_name_moved_on(
    browser, api, project
):
    """Ship was deleted, a new Ship added and renamed Port. Saving the first Ship's form was a
    bare 404 (the deletion was looked up by the slug, whose last service lives on as Port),
    and what the member typed was lost."""
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Ship"})
    html = browser.get(f"/projects/{project}/services/ship/edit/").content.decode()
    stale = {**submitted(html), "description": "long text the member typed"}
    assert api.delete(f"{base}/ship").status_code == 204
    new_service(api, project, {"name": "Ship"})
    assert put(api, f"{base}/ship", {"name": "Port"}).status_code == 200
    response = browser.post(f"/projects/{project}/services/ship/edit/", stale)
    assert response.status_code == 409
    html = response.content.decode()
    assert "This service was deleted by" in html and "long text the member typed" in html


@pytest.mark.parametrize("version", ["²", "9" * 5000, "-1", "x", ""])
def test_a_version_that_is_no_number_is_no_check(browser, api, project, version):
    """What only a hand-made post sends: saved as a form without the field, never a 500."""
    new_service(api, project, {"name": "Checkout"})
    url = f"/projects/{project}/services/checkout/edit/"
    assert browser.post(url, form_data(version=version)).status_code == 302


def test_the_write_itself_refuses_a_version_it_no_longer_holds(api, org, factory, project):
    """The check is made again under the row lock the write takes: a save landing between
    the page's check and the write is refused, not written over."""
    from accounts.actors import actor_for_membership
    from diagrams.service_writes import ServiceChangedMeanwhile, service_update

    created = new_service(api, project, {"name": "Checkout", "owner": "team-a"})
    actor = actor_for_membership(factory.member(org, role="admin"))
    raw = api.get(f"/v1/projects/{project}/services/checkout/raw").json()
    assert created["name"] == "Checkout" and raw["version"] == 1
    opened = (raw["serviceId"], 1)
    service_update(actor=actor, project_id=project, slug="checkout", data={"owner": "team-b"})
    with pytest.raises(ServiceChangedMeanwhile) as refused:
        service_update(
            actor=actor, project_id=project, slug="checkout", data={"owner": "x"}, expected={opened}
        )
    assert refused.value.current.version == 2
    assert api.get(f"/v1/projects/{project}/services/checkout").json()["owner"] == "team-b"
    saved = service_update(
        actor=actor,
        project_id=project,
        slug="checkout",
        data={"owner": "team-c"},
        expected={(raw["serviceId"], 2)},
    )
    assert saved.version == 3


def test_edit_of_a_missing_service_is_404(browser, project):
    assert browser.get(f"/projects/{project}/services/nope/edit/").status_code == 404
    assert (
        browser.post(f"/projects/{project}/services/nope/edit/", {"name": "x"}).status_code == 404
    )


def test_delete_asks_then_deletes(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    url = f"/projects/{project}/services/checkout/delete/"
    page = browser.get(url)
    assert page.status_code == 200 and "Delete the service “Checkout”?" in page.content.decode()
    assert api.get(f"/v1/projects/{project}/services/checkout").status_code == 200
    response = browser.post(url)
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{project}/services/"
    assert api.get(f"/v1/projects/{project}/services/checkout").status_code == 404
    assert browser.post(url).status_code == 404


def test_history_lists_events_with_field_diffs(browser, api, project):
    base = f"/projects/{project}/services"
    browser.post(f"{base}/new/", form_data(description="<b>bold</b>"))
    browser.post(
        f"{base}/checkout/edit/",
        form_data(
            owner="team-ops",
            **{
                "produces-name": ["orders.placed", ""],
                "produces-category": ["events", ""],
                "produces-owner": ["", ""],
            },
        ),
    )
    browser.post(f"{base}/checkout/delete/")
    response = browser.get(f"/projects/{project}/history/")
    assert response.status_code == 200
    html = response.content.decode()
    # a topic name may wrap after its dots on a phone, not inside a word
    assert "orders.<wbr>cancelled (owner: team-<wbr>b)" in html
    html = html.replace("<wbr>", "")
    assert "3 events" in html
    actions = re.findall(r'class="history-action history-(\w+)"', html)
    assert actions == ["deleted", "updated", "created"]
    # each event is headed, so that a screen reader goes from one to the next: when, what, whom
    heads = [
        " ".join(re.sub(r"<[^>]+>", " ", head).split())
        for head in re.findall(r'<h2 class="history-title">(.*?)</h2>', html, re.S)
    ]
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
    assert [re.fullmatch(rf"{when} (\w+) Checkout", head)[1] for head in heads] == [
        "deleted",
        "updated",
        "created",
    ]
    # its link names whose history it opens, without a space before the colon (a hidden
    # span's text came after one: "Checkout : its history")
    assert html.count('aria-label="Checkout: its history">Checkout</a>') == 3
    updated = html[html.index("history-updated") : html.index("history-created")]
    assert '<th scope="row">owner</th>' in updated
    assert "team-shop" in updated and "team-ops" in updated
    assert '<th scope="row">produces</th>' in updated
    # the topic that went is marked; the one kept on both sides is not
    assert (
        '<div class="line-removed"><span class="visually-hidden">removed: </span>'
        "orders.cancelled (owner: team-b)</div>" in updated
    )
    assert "<div>orders.placed (category: events)</div>" in updated
    assert updated.count("line-added") == 0
    # a created service is its values, without a Before column of dashes
    created = html[html.index("history-created") :]
    assert '<th scope="col">Value</th>' in created and "Before" not in created
    assert '<th scope="row">extras.repo</th>' in created and "git@x:shop.git" in created
    assert "&lt;b&gt;bold&lt;/b&gt;" in created and "<b>bold</b>" not in html
    assert "<div>buy</div><div>refund</div>" in created
    # a deleted one is a sentence, not every field going to a dash
    deleted = html[html.index("history-deleted") : html.index("history-updated")]
    assert "Removed from the project" in deleted and "<table" not in deleted


def test_history_pages(browser, api, project):
    for index in range(21):
        new_service(api, project, {"name": f"S{index}"})
    first = browser.get(f"/projects/{project}/history/").content.decode()
    assert first.count('class="history-event"') == 20 and "Page 1 of 2" in first
    second = browser.get(f"/projects/{project}/history/?page=2").content.decode()
    assert second.count('class="history-event"') == 1 and "S0" in second
    assert browser.get(f"/projects/{project}/history/?page=x").status_code == 200
    # a link past the end (the history got shorter) lands on the last page
    past = browser.get(f"/projects/{project}/history/?page=99")
    assert past.status_code == 302
    assert past["Location"] == f"/projects/{project}/history/?page=2"
    assert "Oldest »" not in first and "« Newest" not in second  # the next page is the end


def test_a_long_history_leads_to_its_oldest_and_newest_pages(browser, api, project):
    """A history of thousands of events was Older, a page at a time, back to its start."""
    new_service(api, project, {"name": "Checkout"})
    for index in range(80):
        body = {"owner": f"t{index}"}
        assert put(api, f"/v1/projects/{project}/services/checkout", body).status_code == 200
    history = f"/projects/{project}/history/"
    first = browser.get(history).content.decode()
    assert "Page 1 of 5" in first and '<a href="?page=5">Oldest »</a>' in first
    assert "« Newest" not in first
    middle = browser.get(f"{history}?page=3").content.decode()
    assert '<a href="?">« Newest</a>' in middle and '<a href="?page=5">Oldest »</a>' in middle
    last = browser.get(f"{history}?page=5").content.decode()
    assert "Oldest »" not in last and '<a href="?">« Newest</a>' in last


def test_a_services_history_is_its_events_alone_under_every_name_it_had(browser, api, project):
    """Each event's name leads to that service's history: its events alone, renames and
    deletion included, and not those of a later service given its old name."""
    base = f"/v1/projects/{project}/services"
    history = f"/projects/{project}/history/"
    new_service(api, project, {"name": "Checkout", "description": "Takes orders.\nKeeps them."})
    new_service(api, project, {"name": "Billing"})
    till = {"name": "Till", "description": "Takes orders.\nKeeps them a year."}
    assert put(api, f"{base}/checkout", till).status_code == 200
    assert api.delete(f"{base}/till").status_code == 204
    new_service(api, project, {"name": "Checkout"})  # the name free again: another service
    whole = browser.get(history).content.decode()
    named = re.findall(
        r'<a class="history-name" href="\?service=([0-9a-f-]{36})"[^>]*>([^<]+)<', whole
    )
    assert [name for _, name in named] == ["Checkout", "Till", "Till", "Billing", "Checkout"]
    ids = [service for service, _ in named]
    assert ids[1] == ids[2] == ids[4] and len({ids[0], ids[1], ids[3]}) == 3
    own = browser.get(f"{history}?service={ids[1]}").content.decode().replace("<wbr>", "")
    assert "<h1>History of “Till”</h1>" in own
    assert "deleted on" in own and "3 events, newest first." in own
    assert re.findall(r'class="history-action history-(\w+)"', own) == [
        "deleted",
        "renamed",
        "created",
    ]
    assert "Billing" not in own and "Edit “Till”" not in own  # deleted: nothing to edit
    assert f'href="{history}">Every service' in own
    # a description's lines are lines, the one that changed marked
    updated = own[own.index("history-renamed") : own.index("history-created")]
    assert "<div>Takes orders.</div>" in updated
    assert '<span class="visually-hidden">removed: </span>Keeps them.</div>' in updated
    assert '<span class="visually-hidden">added: </span>Keeps them a year.</div>' in updated
    # by a name (slug) it went by: the service that last did, which may be a later one
    assert "<h1>History of “Till”</h1>" in browser.get(f"{history}?service=till").content.decode()
    now = browser.get(f"{history}?service=checkout").content.decode()
    assert "<h1>History of “Checkout”</h1>" in now and "1 event, newest first." in now
    assert f'href="/projects/{project}/services/checkout/edit/">Edit “Checkout”</a>' in now
    # a name no service had: said, with the way to the whole history
    missing = browser.get(f"{history}?service=chekout")
    assert missing.status_code == 404
    assert "No service of this project goes or went by “chekout”." in missing.content.decode()


def test_a_services_history_pages_keep_to_the_service(
    browser, api, project, django_assert_max_num_queries
):
    base = f"/v1/projects/{project}/services"
    history = f"/projects/{project}/history/"
    new_service(api, project, {"name": "Other"})
    new_service(api, project, {"name": "Checkout"})
    for index in range(21):
        body = {"name": "Checkout", "owner": f"t{index}"}
        assert put(api, f"{base}/checkout", body).status_code == 200
    edit = browser.get(f"/projects/{project}/services/checkout/edit/").content.decode()
    service = opened_as(edit)["service"]
    link = f'<a href="{history}?service={service}">Its history</a>'
    assert link in edit  # the editor leads to it
    first = browser.get(f"{history}?service={service}").content.decode()
    assert "22 events" in first and "Page 1 of 2" in first
    assert f'href="?service={service}&amp;page=2">Older' in first
    second = browser.get(f"{history}?service={service}&page=2").content.decode()
    assert second.count('class="history-event"') == 2 and "Other" not in second
    assert f'href="?service={service}">← Newer' in second
    past = browser.get(f"{history}?service={service}&page=9")
    assert past["Location"] == f"{history}?service={service}&page=2"
    # a page of 20 changes costs the queries of a page of one (not two more each)
    with django_assert_max_num_queries(5):
        browser.get(history)
    with django_assert_max_num_queries(7):
        browser.get(f"{history}?service=checkout")


def test_services_list(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    html = browser.get(f"/projects/{project}/services/").content.decode()
    assert f"/projects/{project}/services/checkout/edit/" in html
    history = f"/projects/{project}/history/?service=checkout"
    assert f'<a href="{history}" aria-label="History of Checkout">History</a>' in html
    assert "<h1>History of “Checkout”</h1>" in browser.get(history).content.decode()
    assert f"/projects/{project}/services/checkout/delete/" in html


def many_services(admin, project: str, count: int) -> None:
    """`count` services, "Service 000" to "Service {count-1}", owned by team-0 to team-4,
    each producing its own topic."""
    write_services(
        admin,
        project,
        (
            {
                "name": f"Service {i:03d}",
                "owner": f"team-{i % 5}",
                "produces": [{"name": f"jobs.{i:03d}"}],
            }
            for i in range(count)
        ),
    )


def listed(html: str) -> list[str]:
    return re.findall(r'<a class="row-title" href="[^"]+">([^<]+)</a>', html)


def test_the_services_page_lists_a_hundred_by_name_and_pages_through_the_rest(
    browser, admin, project, django_assert_max_num_queries
):
    many_services(admin, project, 105)
    page = f"/projects/{project}/services/"
    first = browser.get(page).content.decode()
    assert listed(first) == [f"Service {i:03d}" for i in range(100)]
    assert "105 services, 1 to 100 listed." in first
    assert "Page 1 of 2" in first and 'href="?page=2">Next →' in first
    second = browser.get(page + "?page=2").content.decode()
    assert listed(second) == [f"Service {i:03d}" for i in range(100, 105)]
    assert "101 to 105 listed" in second and 'href="?">← Previous' in second
    # an old link past the end lands on the last page; a page that is no number, on the first
    assert browser.get(page + "?page=9")["Location"] == f"{page}?page=2"
    assert listed(browser.get(page + "?page=x").content.decode())[0] == "Service 000"
    # as many queries for 105 services as for the page of one
    with django_assert_max_num_queries(6):
        browser.get(page + "?page=2")


def test_find_on_the_services_page_narrows_them_to_every_word(browser, admin, project):
    many_services(admin, project, 105)
    page = f"/projects/{project}/services/"
    # an owner and part of a name (or of a topic), in any case
    html = browser.get(page + "?find=TEAM-1+service+09").content.decode()
    assert listed(html) == ["Service 091", "Service 096"]
    assert "2 of 105 services match “TEAM-1 service 09”." in html
    assert 'value="TEAM-1 service 09"' in html  # the box keeps it
    # more matches than a page: the pages keep the words
    html = browser.get(page + "?find=team-0").content.decode()
    assert "21 of 105 services match" in html
    html = browser.get(page + "?find=service").content.decode()
    assert 'href="?find=service&amp;page=2">Next →' in html
    assert listed(browser.get(page + "?find=service&page=2").content.decode())[0] == "Service 100"
    assert browser.get(page + "?find=team-0&page=5")["Location"] == f"{page}?find=team-0&page=1"
    # a topic's name finds its producer
    assert listed(browser.get(page + "?find=jobs.042").content.decode()) == ["Service 042"]
    # nothing: said, with the way back; hostile input is only text
    html = browser.get(page + "?find=zebra").content.decode()
    assert "No services match “zebra”." in html and listed(html) == []
    hostile = browser.get(page, {"find": "<script>" + "x" * 5000, "page": "²"})
    assert hostile.status_code == 200
    assert "<script>x" not in hostile.content.decode()
    assert "&lt;script&gt;" + "x" * 192 + "”" in hostile.content.decode()  # 200 characters


def test_the_services_page_shows_a_write_at_once(browser, api, project):
    new_service(api, project, {"name": "Checkout"})
    assert listed(browser.get(f"/projects/{project}/services/").content.decode()) == ["Checkout"]
    new_service(api, project, {"name": "Billing", "owner": "money"})
    html = browser.get(f"/projects/{project}/services/").content.decode()
    assert listed(html) == ["Billing", "Checkout"]
    assert "2 services." in html


@pytest.mark.parametrize(
    "path",
    [
        "services/",
        "services/new/",
        "services/checkout/edit/",
        "services/checkout/delete/",
        "history/",
    ],
)
def test_another_organizations_project_is_404(factory, api, project, path):
    new_service(api, project, {"name": "Checkout"})
    stranger = factory.member_client(
        factory.member(factory.org("other"), role="admin"), enforce_csrf=False
    )
    assert stranger.get(f"/projects/{project}/{path}").status_code == 404
    if path != "history/" and path != "services/":
        assert stranger.post(f"/projects/{project}/{path}", {"name": "X"}).status_code == 404
    assert api.get(f"/v1/projects/{project}/services/checkout").status_code == 200
    assert stranger.get(f"/projects/nonexistent-id/{path}").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "services/",
        "services/new/",
        "services/checkout/edit/",
        "services/checkout/delete/",
        "history/",
    ],
)
def test_login_required(project, path):
    response = Client().get(f"/projects/{project}/{path}")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=/projects/{project}/{path}"


def test_post_needs_login_and_csrf(factory, admin, api, project):
    url = f"/projects/{project}/services/new/"
    assert Client().post(url, form_data()).status_code == 302
    assert factory.member_client(admin).post(url, form_data()).status_code == 403
    assert api.get(f"/v1/projects/{project}/services").json() == []


def test_a_topic_renamed_in_the_form_keeps_its_flows_and_extras(browser, api, project):
    """The form shows a topic's name, category and owner; its flows and extras (set through
    the API) stay as they were. Renamed in the form (a typo fixed), the topic lost them."""
    base = f"/v1/projects/{project}/services"
    topic = {"name": "checkout.startd", "flows": ["checkout"], "extras": {"schema": "v2"}}
    other = {"name": "cart.seen", "extras": {"retention": "7d"}}
    new_service(api, project, {"name": "Flows", "produces": [topic, other]})
    url = f"/projects/{project}/services/flows/edit/"
    form = submitted(browser.get(url).content.decode())
    names = form["produces-name"]
    assert names[:2] == ["checkout.startd", "cart.seen"]
    form["produces-name"] = ["checkout.started", "cart.seen", *names[2:]]
    assert browser.post(url, form).status_code == 302
    produces = api.get(f"{base}/flows").json()["produces"]
    assert produces[0]["name"] == "checkout.started"
    assert produces[0]["flows"] == ["checkout"] and produces[0]["extras"] == {"schema": "v2"}
    assert produces[1]["extras"] == {"retention": "7d"}
    # a row emptied is a topic removed, whatever it began as
    form = submitted(browser.get(url).content.decode())
    form["produces-name"] = ["", *form["produces-name"][1:]]
    assert browser.post(url, form).status_code == 302
    assert [t["name"] for t in api.get(f"{base}/flows").json()["produces"]] == ["cart.seen"]


def test_saving_a_form_left_as_it_was_writes_nothing(browser, api, project):
    """Save changes with nothing changed wrote a version ("No field changed" in the history),
    and a colleague's form open meanwhile then met a conflict over nothing."""
    assert browser.post(f"/projects/{project}/services/new/", form_data()).status_code == 302
    url = f"/projects/{project}/services/checkout/edit/"
    before = history_total(api, project)
    colleague = submitted(browser.get(url).content.decode())
    mine = submitted(browser.get(url).content.decode())
    response = browser.post(url, mine, follow=True)
    assert "Nothing changed in “Checkout”: nothing to save." in response.content.decode()
    assert history_total(api, project) == before
    # the colleague's save is no conflict
    assert browser.post(url, {**colleague, "owner": "team-z"}).status_code == 302
    assert api.get(f"/v1/projects/{project}/services/checkout").json()["owner"] == "team-z"
    # a form left as it was opened, after a colleague's change, writes nothing over it either
    assert browser.post(url, mine, follow=True).status_code == 200
    assert api.get(f"/v1/projects/{project}/services/checkout").json()["owner"] == "team-z"
    assert history_total(api, project) == before + 1


def test_a_save_changes_only_the_parts_the_member_changed(browser, api, project):
    """What the form holds is read back from text boxes: a flow named "checkout, EU" became
    two flows, and an extra's key lost the spaces around it, whenever anything else was
    saved. A part left as the form showed it now keeps what is stored."""
    new_service(
        api,
        project,
        {
            "name": "Checkout",
            "description": "old",
            "flows": ["checkout, EU", "returns"],
            "extras": {" padded key ": "v", "tier": "1"},
        },
    )
    url = f"/projects/{project}/services/checkout/edit/"
    form = submitted(browser.get(url).content.decode())
    assert browser.post(url, {**form, "description": "new"}).status_code == 302
    stored = api.get(f"/v1/projects/{project}/services/checkout").json()
    assert stored["description"] == "new"
    assert stored["flows"] == ["checkout, EU", "returns"]
    assert stored["extras"] == {" padded key ": "v", "tier": "1"}
    # an extra's value changed: its key, and the others', stay as stored
    form = submitted(browser.get(url).content.decode())
    values = list(form["extras-value"])
    values[list(form["extras-key"]).index("tier")] = "2"
    assert browser.post(url, {**form, "extras-value": values}).status_code == 302
    stored = api.get(f"/v1/projects/{project}/services/checkout").json()
    assert stored["extras"] == {" padded key ": "v", "tier": "2"}
    assert stored["flows"] == ["checkout, EU", "returns"]


def test_a_description_of_several_lines_counts_a_line_break_as_the_box_does(browser, api, project):
    """A textarea sends a line break as CR LF, and its maxlength counts it as one: 199
    characters typed with 3 line breaks were refused as over 200."""
    text = "line one\r\n\r\n\r\n" + "x" * 188  # 199 to the box
    response = browser.post(f"/projects/{project}/services/new/", form_data(description=text))
    assert response.status_code == 302
    stored = api.get(f"/v1/projects/{project}/services/checkout").json()["description"]
    assert stored == "line one\n\n\n" + "x" * 188


def test_twenty_extras_offer_no_empty_row_to_fill(browser, api, project):
    """At the most a service can have, an empty extra row could only be refused."""
    extras = {f"k{i}": str(i) for i in range(20)}
    new_service(api, project, {"name": "Full", "extras": extras})
    html = browser.get(f"/projects/{project}/services/full/edit/").content.decode()
    assert len(row_slices(html, "extras")) == 20
    new_service(api, project, {"name": "Roomy", "extras": {"a": "1"}})
    html = browser.get(f"/projects/{project}/services/roomy/edit/").content.decode()
    assert len(row_slices(html, "extras")) == 3  # its one and two to fill


def test_a_form_of_as_many_topics_as_a_service_may_have_is_read(browser, api, project):
    """500 topics each way (the API's most): the form's thousands of fields were refused
    past Django's 1,000 with a bare 400, everything typed lost."""
    rows = 500
    form = form_data(
        **{
            f"{direction}-{field}": [
                f"{direction}.{i}" if field == "name" else "" for i in range(rows)
            ]
            for direction in ("consumes", "produces")
            for field in ("name", "category", "owner", "was")
        }
    )
    assert browser.post(f"/projects/{project}/services/new/", form).status_code == 302
    saved = api.get(f"/v1/projects/{project}/services/checkout").json()
    assert len(saved["consumes"]) == len(saved["produces"]) == rows


def test_an_empty_name_is_said_in_the_forms_words(browser, project):
    """DRF's "This field may not be blank." was shown beside the name as it came."""
    response = browser.post(f"/projects/{project}/services/new/", form_data(name="   "))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Required: it cannot be empty." in html and "may not be blank" not in html


def test_save_and_cancel_lead_back_to_the_project_page_an_edit_came_from(browser, api, project):
    """The project page's Edit links say where they came from (with the view it showed):
    Save and Cancel led to the Services list whatever page the member left."""
    new_service(api, project, {"name": "Checkout"})
    view = f"/projects/{project}/?focus=service--checkout&depth=2"
    page = browser.get(f"/projects/{project}/").content.decode()
    assert f'/services/checkout/edit/?next=/projects/{project}/"' in page
    url = f"/projects/{project}/services/checkout/edit/"
    html = browser.get(url, {"next": view}).content.decode()
    escaped = view.replace("&", "&amp;")
    assert f'<a href="{escaped}" class="button secondary">Cancel</a>' in html
    form = submitted(html)
    assert form["next"] == view
    response = browser.post(url, {**form, "owner": "team-a"})
    assert response.status_code == 302 and response["Location"] == view
    # nothing changed: back there too
    form = submitted(browser.get(url, {"next": view}).content.decode())
    assert browser.post(url, form)["Location"] == view
    # anywhere else (another site, another project, a path with a fragment): the list
    for elsewhere in ("//evil.example/", "https://evil.example/", "/projects/other/", f"{view}#x"):
        html = browser.get(url, {"next": elsewhere}).content.decode()
        assert f'href="/projects/{project}/services/" class="button secondary">Cancel' in html
        response = browser.post(url, {**submitted(html), "next": elsewhere, "owner": elsewhere})
        assert response["Location"] == f"/projects/{project}/services/"


@pytest.mark.parametrize(
    "path, current", [("services/", "Services"), ("history/", "History"), ("services/new/", None)]
)
def test_the_project_nav_says_which_page_is_open(browser, project, path, current):
    html = browser.get(f"/projects/{project}/{path}").content.decode()
    nav = re.search(r'<nav class="editor-nav".*?</nav>', html, re.S).group(0)
    marked = re.findall(r'aria-current="page">([^<]+)</a>', nav)
    assert marked == [current or "Add a service"]
    assert '<nav aria-label="Main">' in html  # the header's links, named


def test_adding_or_deleting_from_the_project_page_leads_back_to_it(browser, api, project):
    """The header's "Add a service" said nowhere to go back to, and a delete begun from the
    editor of a project page's Edit ended on the Services list; the delete page's Cancel
    forgot where the editor led."""
    new_service(api, project, {"name": "Checkout"})
    view = f"/projects/{project}/?focus=service--checkout&depth=2"
    page = browser.get(view).content.decode()
    escaped = view.replace("&", "&amp;")
    quoted = f"/projects/{project}/%3Ffocus%3Dservice--checkout%26depth%3D2"
    assert f'<a href="/projects/{project}/services/new/?next={quoted}" data-add-service>' in page
    new = f"/projects/{project}/services/new/"
    html = browser.get(new, {"next": view}).content.decode()
    assert f'<a href="{escaped}" class="button secondary">Cancel</a>' in html
    response = browser.post(new, {**form_data(name="Billing"), "next": view})
    assert response.status_code == 302 and response["Location"] == view
    # the editor's delete link carries where it leads; so do the delete page's two ways out
    editor = browser.get(f"/projects/{project}/services/checkout/edit/", {"next": view})
    link = re.search(r'href="([^"]*/delete/[^"]*)"', editor.content.decode()).group(1)
    delete = browser.get(link.replace("&amp;", "&"))
    html = delete.content.decode()
    cancel = re.search(r'<a href="([^"]*)" class="button secondary">Cancel', html).group(1)
    assert cancel.replace("&amp;", "&") == (
        f"/projects/{project}/services/checkout/edit/?next={quoted}"
    )
    assert f'name="next" value="{escaped}"' in html
    # back to the view, without the focus on the service just deleted (it drew "Nothing
    # in the project matches this focus"); another focus is kept
    response = browser.post(f"/projects/{project}/services/checkout/delete/", {"next": view})
    assert response.status_code == 302 and response["Location"] == f"/projects/{project}/"
    assert api.get(f"/v1/projects/{project}/services/checkout").status_code == 404
    other = f"/projects/{project}/?focus=service--billing&depth=2&at=2030-01-01T00:00:00Z"
    new_service(api, project, {"name": "Mailer"})
    response = browser.post(f"/projects/{project}/services/mailer/delete/", {"next": other})
    assert response["Location"] == other
    new_service(api, project, {"name": "Mailer"})
    response = browser.post(
        f"/projects/{project}/services/mailer/delete/",
        {"next": f"/projects/{project}/?at=2030-01-01T00:00:00Z&focus=service--mailer&depth=3"},
    )
    assert response["Location"] == f"/projects/{project}/?at=2030-01-01T00%3A00%3A00Z"


def test_counts_past_a_thousand_are_written_with_a_separator(browser, admin, project):
    """The history page said "1045 events" where the project page said "1,469 topics"."""
    write_services(admin, project, ({"name": f"Service {i:04d}"} for i in range(1001)))
    history = browser.get(f"/projects/{project}/history/").content.decode()
    assert "1,001 events, newest first." in history
    assert "1,001 services" in browser.get(f"/projects/{project}/").content.decode()
    assert "1,001 services" in browser.get("/").content.decode()
    assert "its 1,001 services" in browser.get(f"/projects/{project}/delete/").content.decode()
