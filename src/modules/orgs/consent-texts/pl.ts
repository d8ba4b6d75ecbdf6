/** The default consent disclosure in Polish, one entry per paragraph (see ../consent-text.ts). */
export const pl: readonly string[] = [
  'Zgoda na korzystanie z dokumentów i podpisów elektronicznych',
  'Nadawca tego dokumentu chce przekazać go Państwu i uzyskać Państwa podpis drogą elektroniczną. Przed przejściem dalej prosimy zapoznać się z poniższymi informacjami.',
  'Egzemplarz papierowy. Mają Państwo prawo otrzymać ten dokument w formie papierowej zamiast elektronicznej. Aby poprosić o egzemplarz papierowy, prosimy skontaktować się z nadawcą, korzystając z posiadanych już danych kontaktowych; nadawca może pobrać za to rozsądną opłatę, jeżeli o tym poinformuje. Po podpisaniu otrzymają Państwo gotowy dokument pocztą elektroniczną i będą mogli go Państwo wydrukować.',
  'Wycofanie zgody. Zgodę na załatwienie tej sprawy drogą elektroniczną mogą Państwo wycofać w dowolnym momencie przed złożeniem podpisu, wybierając na tej stronie „Nie zgadzam się” lub informując o tym nadawcę. Wycofanie zgody kończy tę prośbę o podpis elektroniczny: dokument zostaje odrzucony, a nadawca musi przekazać go Państwu w formie papierowej lub w inny sposób. Wycofanie zgody nie wpływa na skutki prawne tego, co podpisali Państwo wcześniej elektronicznie.',
  'Zakres. Zgoda obejmuje ten dokument oraz dotyczące go powiadomienia, które wysyłamy Państwu pocztą elektroniczną.',
  'Sprzęt i oprogramowanie. Potrzebne są: urządzenie z dostępem do internetu, aktualna przeglądarka internetowa (np. jedna z najnowszych wersji Chrome, Edge, Firefox lub Safari) z włączoną obsługą JavaScriptu, konto poczty elektronicznej oraz możliwość wyświetlania i zapisywania lub drukowania plików PDF.',
  'Aktualizacja danych kontaktowych. Jeżeli zmieni się Państwa adres e-mail lub inne dane kontaktowe, prosimy poinformować o tym nadawcę, aby mógł kontaktować się z Państwem w sprawie tego dokumentu.',
  'Wybierając „Zgadzam się”, potwierdzają Państwo, że mają dostęp do niniejszej informacji i dokumentów w formacie PDF oraz mogą je przeczytać, a także wyrażają zgodę na korzystanie z dokumentów i podpisów elektronicznych w odniesieniu do tego dokumentu.',
];
