/** The default consent disclosure in German, one entry per paragraph (see ../consent-text.ts). */
export const de: readonly string[] = [
  'Einwilligung in die Verwendung elektronischer Dokumente und Signaturen',
  'Der Absender dieses Dokuments möchte es Ihnen elektronisch bereitstellen und Ihre Unterschrift elektronisch einholen. Bitte lesen Sie vor dem Fortfahren die folgenden Hinweise.',
  'Papierexemplar. Sie haben das Recht, dieses Dokument stattdessen auf Papier zu erhalten. Wenden Sie sich für ein Papierexemplar über die Ihnen bereits bekannten Kontaktdaten an den Absender; er kann hierfür ein angemessenes Entgelt verlangen, sofern er Sie darauf hinweist. Nach der Unterzeichnung erhalten Sie das fertiggestellte Dokument per E-Mail und können es ausdrucken.',
  'Widerruf Ihrer Einwilligung. Sie können Ihre Einwilligung in die elektronische Abwicklung jederzeit vor Ihrer Unterschrift widerrufen, indem Sie auf dieser Seite „Ich stimme nicht zu“ wählen oder dies dem Absender mitteilen. Mit dem Widerruf endet diese elektronische Signaturanfrage: Das Dokument wird abgelehnt, und der Absender muss es Ihnen auf Papier oder auf anderem Weg zur Verfügung stellen. Der Widerruf berührt nicht die Rechtswirkung dessen, was Sie zuvor elektronisch unterzeichnet haben.',
  'Geltungsbereich. Ihre Einwilligung gilt für dieses Dokument und für die Benachrichtigungen dazu, die wir Ihnen per E-Mail senden.',
  'Hardware und Software. Sie benötigen ein Gerät mit Internetzugang, einen aktuellen Webbrowser (etwa eine neuere Version von Chrome, Edge, Firefox oder Safari) mit aktiviertem JavaScript, ein E-Mail-Konto sowie die Möglichkeit, PDF-Dateien anzuzeigen und zu speichern oder auszudrucken.',
  'Aktualisierung Ihrer Kontaktdaten. Wenn sich Ihre E-Mail-Adresse oder andere Kontaktdaten ändern, teilen Sie dies bitte dem Absender mit, damit er Sie zu diesem Dokument erreichen kann.',
  'Indem Sie „Ich stimme zu“ wählen, bestätigen Sie, dass Sie diese Informationen und Dokumente im PDF-Format aufrufen und lesen können und dass Sie in die Verwendung elektronischer Dokumente und Signaturen für dieses Dokument einwilligen.',
];
