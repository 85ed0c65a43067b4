/* Copy buttons: <button data-copy="element-id"> copies that field's text. */
document.querySelectorAll("[data-copy]").forEach(function (button) {
  button.addEventListener("click", function () {
    var field = document.getElementById(button.getAttribute("data-copy"));
    var done = function () {
      var label = button.textContent;
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done);
    } else {
      field.select();
      document.execCommand("copy");
      done();
    }
  });
});
