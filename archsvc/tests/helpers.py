"""What the admin tests share."""


def refused_delete(operator, url: str, reason: str) -> None:
    """A delete the rules refuse: its address goes back to the object's page saying why
    (it was a bare 403), and a posted confirmation deletes nothing either."""
    response = operator.get(url, follow=True)
    change = url.removesuffix("delete/") + "change/"
    assert response.redirect_chain == [(change, 302)], response.redirect_chain
    assert reason in response.content.decode()
    assert operator.post(url, {"post": "yes"}).status_code == 302
